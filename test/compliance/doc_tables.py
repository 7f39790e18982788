"""Markdown tables of the project's documents, as the document checks read them."""


def table_rows(lines, heading):
    """The rows (lists of stripped cells) of the first table after the line `heading`, past its
    header and rule."""
    start = lines.index(heading)
    rows, seen = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            seen = True
            rows.append([c.strip() for c in line.strip("|").split("|")])
        elif seen:
            break
    return rows[2:]
