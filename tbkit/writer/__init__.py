"""The write side: event files written by a background thread, and the SummaryWriter facade."""
