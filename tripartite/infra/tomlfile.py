"""Reading tripartite.toml as a file that may hold no secret: a regular file (a named pipe would
block the read), UTF-8 text (as TOML must be), valid TOML, and no credential in it. Each refusal
is one line naming the file and the fix."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from tripartite.infra.errors import ConfigError
from tripartite.infra.folders import not_regular
from tripartite.infra.secrets import written_secret


def read_toml(path: Path) -> dict[str, Any]:
    """The file's tables; a path that is no regular file (a FIFO would block the read), a text
    that is not UTF-8 (as TOML must be), bad TOML or a secret in it is one line."""
    kind = not_regular(path)
    if kind:
        raise ConfigError(f"{path}: not a regular file ({kind}); point --config or TRIPARTITE_CONFIG at a "
                          "tripartite.toml")
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
        tables = tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found; fix the path or unset TRIPARTITE_CONFIG") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}); check its permissions") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start}); TOML "
                          "files are UTF-8: convert it, e.g. iconv -f latin1 -t utf-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix the file") from None
    if secret := written_secret(tables):
        raise ConfigError(f"{path}: {secret}")
    return tables
