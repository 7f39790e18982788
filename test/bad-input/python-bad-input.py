"""Plays python_cases.PYTHON_CASES in this process (the project's virtualenv, with the build's
bindings), then a good experiment, and prints one JSON object: per case the exception's type,
whether it is a metaroce.ConfigError, its field and message; and whether the good run
completed. check-bad-input.py judges them.

    METAROCE_BUILD_DIR=build PYTHONPATH=bindings/python venv/bin/python \
        test/bad-input/python-bad-input.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from python_cases import PYTHON_CASES, SHAPE, Numpy  # noqa: E402


def materialise(value):
    """The case's value with every Numpy stand-in made."""
    if isinstance(value, Numpy):
        return value.make()
    if isinstance(value, dict):
        return {k: materialise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [materialise(v) for v in value]
    return value


def play(mx, function, kwargs):
    """Calls mx.<function>; returns what it raised (None when nothing)."""
    kwargs = materialise(kwargs)
    try:
        if function == "sweep":
            mx.sweep(kwargs.pop("configs"), **kwargs)
        elif function == "run" and "base" in kwargs:
            mx.run(kwargs.pop("base"), **kwargs)
        else:
            getattr(mx, function)(**kwargs)
    except Exception as e:  # judged by the checker
        return e
    return None


def main():
    import metaroce
    from metaroce import experiment as mx

    results = []
    for function, kwargs, field, needles in PYTHON_CASES:
        e = play(mx, function, kwargs)
        results.append({"call": f"mx.{function}({kwargs!r})",
                        "type": type(e).__name__ if e else None,
                        "config_error": isinstance(e, metaroce.ConfigError),
                        "field": getattr(e, "field", None),
                        "message": str(e) if e else ""})
    # The simulator is still usable: a good run in the same process.
    try:
        good = bool(mx.run(SHAPE).summary["complete"])
    except Exception as e:  # reported as such
        good = f"{type(e).__name__}: {e}"
    json.dump({"cases": results, "good_run": good}, sys.stdout)


if __name__ == "__main__":
    main()
