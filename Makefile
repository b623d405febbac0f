# Developer entry points. Everything runs through the project virtual environment in .venv.

PY ?= .venv/bin/python
VENV_STAMP := .venv/.stamp

.PHONY: venv test lint bench bench-kernels bench-tuners run

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

bench: bench-kernels bench-tuners

# Tuners against each other on the ResNet-18 convs (long: ~1,800 trials per task).
# Pass options through BENCH_TUNERS_ARGS, e.g. "--tasks conv_56_64_64_3x3 --budgets 64,128".
BENCH_TUNERS_ARGS ?=
bench-tuners: venv
	$(PY) benchmarks/tuners.py $(BENCH_TUNERS_ARGS)

# The main job today: tune two ResNet-18 conv2d layers on this CPU and print them next to
# numpy (OpenBLAS) and ONNX Runtime. Becomes whole-network tuning with the networks issue.
RUN_LAYERS ?= conv_56_64_64_3x3,conv_28_128_128_3x3
RUN_TRIALS ?= 32
run: venv
	$(PY) benchmarks/kernels.py --layers $(RUN_LAYERS) --trials $(RUN_TRIALS)
