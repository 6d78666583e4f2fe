"""Regenerate tbkit's ``*_pb2.py`` (and ``.pyi``) files from ``tbkit/proto/*.proto``.

Run from the repository root: ``python tools/gen_protos.py``. Needs ``grpcio-tools``
(a test extra). The generated files are committed, so users never run this.
"""

from __future__ import annotations

import pathlib
import sys

import grpc_tools
from grpc_tools import protoc


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    protos = sorted(str(p.relative_to(root)) for p in (root / "tbkit" / "proto").glob("*.proto"))
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"  # google/protobuf/*.proto
    args = ["protoc", f"-I{root}", f"-I{well_known}", f"--python_out={root}", f"--pyi_out={root}", *protos]
    code = protoc.main(args)
    if code != 0:
        print(f"protoc failed with exit code {code}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
