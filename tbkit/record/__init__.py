"""The record layer, shared by writer and reader.

TFRecord framing, masked CRC-32C, the hand-written protobuf wire format (``wire``) and storage.
"""
