"""Reading event files: ``summary_iterator``, the incremental loader, the index and ``tbkit.read``."""
