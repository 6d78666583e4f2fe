"""Videos as animated GIFs, and images with bounding boxes drawn on them (Pillow)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from tbkit.plugins.images.convert import make_grid, to_uint8


def video_frames(video: np.ndarray) -> np.ndarray:
    """``[N, T, C, H, W]`` videos to ``[T, H', W', C]`` uint8 frames, the N videos tiled in a grid."""
    if video.ndim == 4:
        video = video[np.newaxis]
    if video.ndim != 5:
        raise ValueError(f"vid_tensor must have shape (N, T, C, H, W), got {video.shape}")
    n, t, c, h, w = video.shape
    if c not in (1, 3, 4) or 0 in (n, t, h, w):
        raise ValueError(
            f"vid_tensor must have 1, 3 or 4 channels and no empty axis, got shape {video.shape}"
        )
    frames = to_uint8(np.transpose(video, (1, 0, 3, 4, 2)))  # T, N, H, W, C
    return np.stack([make_grid(frames[i]) for i in range(t)])


def encode_gif(frames: np.ndarray, fps: float) -> bytes:
    """Encode ``[T, H, W, C]`` uint8 frames as a looping animated GIF at ``fps`` frames per second."""
    from PIL import Image

    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps!r}")
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[frames.shape[-1]]
    images = [Image.fromarray(f[..., 0] if f.shape[-1] == 1 else f, mode).convert("RGB") for f in frames]
    buf = io.BytesIO()
    duration = max(1, round(1000 / fps))
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0)
    return buf.getvalue()


def draw_boxes(
    hwc: np.ndarray, boxes: np.ndarray, labels: Sequence[str] | None = None, *, rescale: float = 1.0
) -> np.ndarray:
    """Draw ``[K, 4]`` boxes ``(x_min, y_min, x_max, y_max)`` in pixels, with optional labels.

    As torch draws them: each box a red closed line two pixels wide through its corners, its
    label in black on a red band inside the box's bottom-left corner (Pillow's default font);
    the boxes are drawn on the image as given, then the image is scaled by ``rescale``.
    """
    from PIL import Image, ImageDraw, ImageFont

    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4) if np.size(boxes) else np.zeros((0, 4))
    if labels is not None and len(labels) != len(boxes):
        raise ValueError(f"labels must have one entry per box: {len(labels)} labels for {len(boxes)} boxes")
    image = Image.fromarray(hwc[..., 0] if hwc.shape[-1] == 1 else hwc).convert("RGB")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    red = (255, 0, 0)
    for i, (left, top, right, bottom) in enumerate(boxes.tolist()):
        corners = [(left, top), (left, bottom), (right, bottom), (right, top), (left, top)]
        draw.line(corners, width=2, fill=red)
        label = None if labels is None else str(labels[i])
        if label:
            x0, y0, x1, y1 = font.getbbox(label)
            width, height = x1 - x0, y1 - y0
            margin = float(np.ceil(0.05 * height))
            draw.rectangle([(left, bottom - height - 2 * margin), (left + width, bottom)], fill=red)
            draw.text((left + margin, bottom - height - margin), label, fill=(0, 0, 0), font=font)
    if rescale != 1:
        size = (max(1, int(image.width * rescale)), max(1, int(image.height * rescale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    return np.asarray(image)
