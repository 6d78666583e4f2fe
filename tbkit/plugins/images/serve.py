"""What the image and audio dashboards need to serve media: content types from magic bytes, image sizes."""

from __future__ import annotations

import io

from tbkit.plugins.images.decode import image_format

__all__ = ["audio_content_type", "image_content_type", "image_size"]

_IMAGE_TYPES = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "bmp": "image/bmp",
    "webp": "image/webp",
}


def image_content_type(data: bytes) -> str | None:
    """The image MIME type sniffed from ``data``'s first bytes, or None when it is no known image.

    Example:
        >>> image_content_type(b"\\x89PNG\\r\\n\\x1a\\n...")
        'image/png'
    """
    return _IMAGE_TYPES.get(image_format(data))


def image_size(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` from the header of an encoded image of a known format, or None.

    Only the header is read (Pillow opens lazily); an unknown format, or one Pillow cannot
    open, gives None.

    Example:
        >>> from PIL import Image
        >>> out = io.BytesIO()
        >>> Image.new("RGB", (6, 8)).save(out, format="PNG")
        >>> image_size(out.getvalue())
        (6, 8)
    """
    if not image_format(data[:16]):
        return None
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except Exception:  # untrusted bytes: whatever Pillow raises on them means "no size"
        return None
    return int(width), int(height)


def audio_content_type(data: bytes) -> str | None:
    """The audio MIME type sniffed from ``data``'s first bytes (WAV, Ogg, FLAC, MP3), or None.

    Example:
        >>> audio_content_type(b"RIFF\\x00\\x00\\x00\\x00WAVEfmt ")
        'audio/wav'
    """
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        return "audio/wav"
    if data[:4] == b"OggS":
        return "audio/ogg"
    if data[:4] == b"fLaC":
        return "audio/flac"
    if data[:3] == b"ID3" or (len(data) > 1 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    return None
