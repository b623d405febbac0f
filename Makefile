# Developer entry points. Everything runs through the project virtual environment in .venv.

PY ?= .venv/bin/python
VENV_STAMP := .venv/.stamp

.PHONY: venv test lint bench bench-kernels run

venv: $(VENV_STAMP)

# Rebuild the environment only when the package metadata changes.
$(VENV_STAMP): shared/pyproject.toml
	python3 -m venv .venv
	.venv/bin/python -m pip install --upgrade pip
	.venv/bin/python -m pip install -e './shared[dev,services]'
	touch $(VENV_STAMP)

test: venv
	$(PY) -m pytest tests -q -m "not gpu"

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

bench-kernels: venv
	$(PY) benchmarks/kernels.py

bench: bench-kernels

# Placeholder until the CLI grows real commands.
run: venv
	$(PY) -m tunefarm.cli.main --help
