"""Split a device shell command line the way mksh does, for the fake adb.

Only what AdbEnv sends: words with single quotes, double quotes and backslashes, and the list
operators `;`, `&&` and `||` (unquoted). A quoted `;` stays part of its word, which is why this is
not `shlex` with punctuation characters.
"""

from __future__ import annotations

OPERATORS = (";", "&&", "||")


def tokenize(line: str) -> list[tuple[str, bool]]:
    """(token, is_operator) pairs."""
    tokens: list[tuple[str, bool]] = []
    word: list[str] = []
    in_word = False
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ValueError(f"unterminated quote in {line!r}")
            word.append(line[i + 1 : end])
            in_word = True
            i = end + 1
        elif ch == '"':
            i += 1
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n and line[i + 1] in '"\\$`':
                    i += 1
                word.append(line[i])
                i += 1
            if i >= n:
                raise ValueError(f"unterminated quote in {line!r}")
            in_word = True
            i += 1
        elif ch == "\\" and i + 1 < n:
            word.append(line[i + 1])
            in_word = True
            i += 2
        elif ch in " \t\n":
            if in_word:
                tokens.append(("".join(word), False))
                word, in_word = [], False
            i += 1
        elif line.startswith(("&&", "||"), i) or ch == ";":
            if in_word:
                tokens.append(("".join(word), False))
                word, in_word = [], False
            op = ch if ch == ";" else line[i : i + 2]
            tokens.append((op, True))
            i += len(op)
        else:
            word.append(ch)
            in_word = True
            i += 1
    if in_word:
        tokens.append(("".join(word), False))
    return tokens


def split_commands(line: str) -> list[tuple[str, list[str]]]:
    """[(operator before it, argv)]: the first operator is ';'."""
    commands: list[tuple[str, list[str]]] = []
    op = ";"
    argv: list[str] = []
    for token, is_op in tokenize(line):
        if is_op:
            if argv:
                commands.append((op, argv))
            op, argv = token, []
        else:
            argv.append(token)
    if argv:
        commands.append((op, argv))
    return commands
