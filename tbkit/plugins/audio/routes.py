"""The audio dashboard's routes (``/data/plugin/audio/``).

An audio series is a blob sequence of clips per step; ``sample=I`` picks the ``I``-th
clip. Its ``label`` is the clip's Markdown label rendered and sanitized, when the provider
has labels (``BlobSequenceDatum.labels``; a provider over a logdir does), else empty.
"""

from __future__ import annotations

from flask import Blueprint, Response

from tbkit.plugins import web
from tbkit.plugins._markdown import markdown_to_safe_html
from tbkit.plugins.audio.decode import wav_duration, wav_info
from tbkit.plugins.audio.metadata import PLUGIN_NAME
from tbkit.plugins.images.serve import audio_content_type

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("audio", "Audio", (PLUGIN_NAME,)),)
DEFAULT_STEPS = 10
_WAV_HEADER = 4096  # enough bytes to find the fmt chunk

blueprint = Blueprint("audio", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    listing = web.provider().list_blob_sequences(PLUGIN_NAME)
    return web.json_response(
        {
            run: {
                tag: {
                    "samples": m.max_length,
                    "display_name": m.display_name,
                    "description": m.description,
                    "max_step": m.max_step,
                }
                for tag, m in series.items()
            }
            for run, series in listing.items()
        }
    )


@blueprint.get("/audio")
def audio() -> Response:
    provider, sample, series = web.sampled_blob_series(PLUGIN_NAME, DEFAULT_STEPS)
    out = []
    for datum in series:
        if len(datum.values) <= sample:
            continue
        key = datum.values[sample].blob_key
        head = provider.read_blob(key)[:_WAV_HEADER]
        rate = wav_info(head)[0]
        out.append(
            {
                "step": datum.step,
                "wall_time": datum.wall_time,
                "label": markdown_to_safe_html(datum.labels[sample] if datum.labels else ""),
                "content_type": audio_content_type(head) or "audio/wav",
                "sample_rate": rate if rate > 0 else None,
                "duration": wav_duration(head),  # seconds, from the WAV header; null when unknown
                "blob_key": key,
            }
        )
    return web.json_response(out)


@blueprint.get("/individualAudio")
def individual_audio() -> Response:
    return web.blob_response(audio_content_type, "an audio clip")
