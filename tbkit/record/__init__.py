"""The record layer: TFRecord framing, masked CRC-32C and storage, shared by writer and reader."""
