"""Audio routes: clips, sample rates, content types, refused keys."""

from __future__ import annotations

import io
from typing import Any

import pytest
import soundfile

from tbkit.provider import InMemoryProvider
from tbkit.server.app import create_app
from tests.server._logdirs import wav_bytes


def test_tags(client: Any) -> None:
    assert client.get("/data/plugin/audio/tags").json["train"]["sound"]["samples"] == 1


def test_audio_and_clips(client: Any) -> None:
    answer = client.get("/data/plugin/audio/audio?run=train&tag=sound").json
    assert [a["step"] for a in answer] == [0, 1, 2, 3, 4]
    for entry in answer:
        assert entry["sample_rate"] == 8000 and entry["content_type"] == "audio/wav"
        assert entry["duration"] == pytest.approx(800 / 8000)  # from the header, shown before playing
        assert entry["label"] == ""
        clip = client.get("/data/plugin/audio/individualAudio", query_string={"blob_key": entry["blob_key"]})
        assert clip.status_code == 200 and clip.mimetype == "audio/wav"
        samples, rate = soundfile.read(io.BytesIO(clip.data))
        assert rate == 8000 and len(samples) == 800


def test_an_image_is_not_served_as_audio(client: Any) -> None:
    key = client.get("/data/plugin/images/images?run=train&tag=pictures").json[0]["blob_key"]
    assert client.get("/data/plugin/audio/individualAudio", query_string={"blob_key": key}).status_code == 404


def test_sample_rate_of_hand_made_clips() -> None:
    provider = InMemoryProvider({"r": {"a": {"plugin": "audio", "points": [(0, 1.0, [wav_bytes(22050)])]}}})
    answer = create_app(provider).test_client().get("/data/plugin/audio/audio?run=r&tag=a").json
    assert answer[0]["sample_rate"] == 22050


@pytest.mark.parametrize(
    ("query", "status"),
    [("run=train", 400), ("run=train&tag=nope", 404), ("run=train&tag=sound&sample=x", 400)],
)
def test_errors(client: Any, query: str, status: int) -> None:
    assert client.get(f"/data/plugin/audio/audio?{query}").status_code == status


def test_labels_written_with_the_clips_are_served_sanitized(tmp_path) -> None:
    import numpy as np

    import tbkit
    from tbkit.plugins.audio.summary import audio_pb, encode_wav

    clips = [encode_wav(np.zeros(80), 8000), encode_wav(np.ones(80) * 0.5, 8000)]
    labels = ["**loud** one", "<script>window.__x=1</script>quiet"]
    with tbkit.SummaryWriter(str(tmp_path / "run")) as writer:
        writer.add_summary(audio_pb("speech", clips, labels), 3)
    provider = tbkit.read(str(tmp_path)).provider
    (datum,) = provider.read_blob_sequences("audio")["run"]["speech"]
    assert datum.labels == tuple(labels)
    client = create_app(provider).test_client()
    first, second = (
        client.get(f"/data/plugin/audio/audio?run=run&tag=speech&sample={i}").json[0]["label"] for i in (0, 1)
    )
    assert "<strong>loud</strong>" in first
    assert "<script" not in second and "quiet" in second


def test_a_provider_without_labels_serves_empty_ones(client: Any) -> None:
    answer = client.get("/data/plugin/audio/audio?run=train&tag=sound").json
    assert {entry["label"] for entry in answer} == {""}


def test_duration_of_long_stereo_and_non_wav_clips() -> None:
    import numpy as np

    from tbkit.plugins.audio.summary import encode_wav

    stereo = encode_wav(np.zeros((44100 * 3, 2)), 44100)  # 3 s: far more than the 4 KB the route reads
    provider = InMemoryProvider(
        {
            "r": {
                "a": {"plugin": "audio", "points": [(0, 1.0, [stereo]), (1, 2.0, [b"OggS" + bytes(60)])]},
            }
        }
    )
    answer = create_app(provider).test_client().get("/data/plugin/audio/audio?run=r&tag=a").json
    assert answer[0]["duration"] == pytest.approx(3.0)
    assert answer[1]["duration"] is None
