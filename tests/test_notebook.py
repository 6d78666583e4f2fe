"""tbkit in a real notebook: cells executed by nbclient on an ipykernel on loopback."""

from __future__ import annotations

import html
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tbkit

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def write_logdir(root: Path) -> Path:
    """Two runs of scalars and a text note: what the notebook shows."""
    for i, run in enumerate(("train", "eval")):
        with tbkit.SummaryWriter(str(root / run)) as w:
            for step in range(30):
                w.add_scalar("loss", 1.0 / (step + 1) + i, step)
            w.add_text("notes", f"**{run}** run", 0)
    return root


class Kernel:
    """A notebook whose cells run one by one in a live kernel (so its servers stay up)."""

    def __init__(self, client: Any, notebook: Any) -> None:
        self.client = client
        self.notebook = notebook

    def run(self, source: str) -> list[dict[str, Any]]:
        """Execute one new cell; its outputs."""
        cell = nbformat.v4.new_code_cell(source)
        self.notebook.cells.append(cell)
        self.client.execute_cell(cell, len(self.notebook.cells) - 1)
        return list(cell.outputs)


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    notebook = nbformat.v4.new_notebook()
    client = nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    with client.setup_kernel():
        yield Kernel(client, notebook)


def html_of(outputs: list[dict[str, Any]]) -> str:
    """The text/html of a cell's display outputs, joined."""
    return "".join(
        o.get("data", {}).get("text/html", "") for o in outputs if o.get("output_type") == "display_data"
    )


def test_magic_show_list_plot_stop(kernel: Kernel, tmp_path: Path) -> None:
    logdir = write_logdir(tmp_path / "logs")
    assert kernel.run("%load_ext tbkit") == []
    shown = html_of(kernel.run(f"%tbkit --logdir {logdir} --height 500"))
    assert 'class="tbkit-notebook"' in shown and 'data-view="inline"' in shown
    inline = re.search(r'srcdoc="([^"]*)"', shown)
    assert inline is not None
    page = html.unescape(inline.group(1))
    assert "tbkit-report-data" in page and '"tag": "loss"' in page.replace('":"', '": "')
    url = re.search(r'data-url="([^"]+)"', shown).group(1)  # type: ignore[union-attr]
    assert re.fullmatch(r"http://localhost:\d+/", url)
    with urllib.request.urlopen(url + "data/runs", timeout=30) as answer:  # the kernel's server answers
        assert answer.status == 200

    kernel.run("import tbkit\nimport tbkit.notebook as nb")
    listed = kernel.run("print([(s.logdir, s.port) for s in nb.list()])")
    port = int(url.rsplit(":", 1)[1].strip("/"))
    assert listed[0]["text"].strip() == repr([(str(logdir), port)])
    again = html_of(kernel.run(f"nb.show({str(logdir)!r})"))  # the same server again
    assert f'data-url="{url}"' in again
    assert kernel.run("print(len(nb.list()))")[0]["text"].strip() == "1"

    drawn = kernel.run(f"nb.plot(tbkit.read({str(logdir)!r}).scalars(), title='losses')")
    assert [o["output_type"] for o in drawn] == ["execute_result"]  # no warning beside it
    (chart,) = [o["data"]["text/html"] for o in drawn if o["output_type"] == "execute_result"]
    assert "tbkit-inline" in chart and "losses" in html.unescape(chart)

    assert kernel.run("print(nb.stop())")[0]["text"].strip() == "1"
    assert kernel.run("print(nb.list())")[0]["text"].strip() == "[]"
    with pytest.raises(OSError):
        urllib.request.urlopen(url + "data/runs", timeout=5)


def test_a_bad_magic_line_says_how(kernel: Kernel) -> None:
    kernel.run("%load_ext tbkit")
    with pytest.raises(nbclient.exceptions.CellExecutionError) as failed:
        kernel.run("%tbkit --port 1")
    assert "InvalidArgumentError" in str(failed.value) and "--logdir" in str(failed.value)


def test_the_proxy_url_under_jupyterhub(kernel: Kernel, tmp_path: Path) -> None:
    logdir = write_logdir(tmp_path / "logs")
    shown = html_of(
        kernel.run(
            "import os, tbkit.notebook as nb\n"
            "os.environ['TBKIT_NOTEBOOK_PROXY'] = '/user/me/'\n"
            f"server = nb.show({str(logdir)!r})"
        )
    )
    url = re.search(r'data-url="([^"]+)"', shown).group(1)  # type: ignore[union-attr]
    port = kernel.run("print(server.port)")[0]["text"].strip()
    assert url == f"/user/me/proxy/absolute/{port}/"
    # The proxy forwards the whole path: the server answers under that prefix.
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{url}data/runs", timeout=30) as answer:
        assert answer.status == 200
    kernel.run("nb.stop()")
