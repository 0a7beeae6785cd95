"""A tiny reader of the YAML subset `deploy/` is written in (PyYAML is not a dependency):
block mappings and sequences by indentation, `---` between documents, comments, plain and
quoted scalars, and flow sequences of scalars (`[a, "b c", d]`). Anything else (anchors,
flow mappings, block scalars, multi-line strings) is refused, so a deploy file that strays
from the subset fails its test instead of being misread."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["load_all"]

_FLOW_ITEM = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[^,\]]+?)\s*(?:,|$)')


def _strip_comment(line: str) -> str:
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def _scalar(text: str) -> Any:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [_scalar(m.group(1)) for m in _FLOW_ITEM.finditer(inner) if m.group(1)]
    if text[:1] in ("&", "*", "{", "|", ">", "!"):
        raise ValueError(f"outside the YAML subset: {text!r}")
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~", ""):
        return None
    return text


def _split_key(text: str) -> tuple[str, str] | None:
    m = re.match(r'^("[^"]*"|\'[^\']*\'|[^\s"\'][^:]*?):(?:\s+(.*))?$', text)
    if m is None:
        return None
    key = m.group(1)
    return (key[1:-1] if key[0] in "\"'" else key), (m.group(2) or "")


def _parse(lines: list[tuple[int, str]], pos: int, indent: int) -> tuple[Any, int]:
    if lines[pos][1].startswith("- ") or lines[pos][1] == "-":
        out: list[Any] = []
        while pos < len(lines) and lines[pos][0] == indent and lines[pos][1][:1] == "-":
            rest = lines[pos][1][1:].strip()
            if not rest:
                value, pos = _parse(lines, pos + 1, lines[pos + 1][0])
                out.append(value)
                continue
            inner = indent + 2
            lines[pos] = (inner, rest)  # `- key: v` is a mapping indented past the dash
            if _split_key(rest) is not None:
                value, pos = _parse(lines, pos, inner)
            else:
                value, pos = _scalar(rest), pos + 1
            out.append(value)
        return out, pos
    mapping: dict[str, Any] = {}
    while pos < len(lines) and lines[pos][0] == indent:
        split = _split_key(lines[pos][1])
        if split is None:
            raise ValueError(f"not a mapping entry: {lines[pos][1]!r}")
        key, rest = split
        if rest:
            mapping[key] = _scalar(rest)
            pos += 1
        elif pos + 1 < len(lines) and lines[pos + 1][0] > indent:
            mapping[key], pos = _parse(lines, pos + 1, lines[pos + 1][0])
        elif pos + 1 < len(lines) and lines[pos + 1][0] == indent and \
                lines[pos + 1][1][:1] == "-":
            mapping[key], pos = _parse(lines, pos + 1, indent)  # a list at the key's indent
        else:
            mapping[key] = None
            pos += 1
    if pos < len(lines) and lines[pos][0] > indent:
        raise ValueError(f"bad indentation at {lines[pos][1]!r}")
    return mapping, pos


def load_all(text: str) -> list[Any]:
    """Every document of ``text``."""
    docs: list[Any] = []
    for chunk in re.split(r"(?m)^---\s*$", text):
        lines = []
        for raw in chunk.splitlines():
            line = _strip_comment(raw)
            if line.strip():
                if "\t" in line[: len(line) - len(line.lstrip())]:
                    raise ValueError("tabs in indentation")
                lines.append((len(line) - len(line.lstrip()), line.strip()))
        if lines:
            value, pos = _parse(lines, 0, lines[0][0])
            if pos != len(lines):
                raise ValueError(f"unparsed: {lines[pos][1]!r}")
            docs.append(value)
    return docs
