# Developer entry points. Everything runs through the project virtual environment in .venv.

PY ?= .venv/bin/python
VENV_STAMP := .venv/.stamp

.PHONY: venv test lint bench bench-kernels bench-tuners bench-networks run

venv: $(VENV_STAMP)

# Rebuild the environment only when the package metadata changes.
$(VENV_STAMP): shared/pyproject.toml services/pyproject.toml
	python3 -m venv .venv
	.venv/bin/python -m pip install --upgrade pip
	.venv/bin/python -m pip install -e './shared[dev,services]' -e ./services
	touch $(VENV_STAMP)

test: venv
	$(PY) -m pytest tests -q -m "not gpu"

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

bench-kernels: venv
	$(PY) benchmarks/kernels.py

bench: bench-kernels bench-tuners bench-networks

# Tuners against each other on the ResNet-18 convs (long: ~1,800 trials per task).
# Pass options through BENCH_TUNERS_ARGS, e.g. "--tasks conv_56_64_64_3x3 --budgets 64,128".
BENCH_TUNERS_ARGS ?=
bench-tuners: venv
	$(PY) benchmarks/tuners.py $(BENCH_TUNERS_ARGS)

# Whole networks: ONNX Runtime vs tunefarm untuned and tuned (resnet-18, mobilenet-v2,
# resnet-50; tuning logs in benchmarks/logs make a rerun resume). Options: BENCH_NETWORKS_ARGS.
BENCH_NETWORKS_ARGS ?=
bench-networks: venv
	$(PY) benchmarks/networks.py $(BENCH_NETWORKS_ARGS)

# The main job: tune a zoo network on this CPU in embedded mode (no broker), compile it,
# check it against ONNX Runtime and print its latency next to untuned and ONNX Runtime.
# A rerun resumes from the log (nothing is measured twice).
RUN_MODEL ?= zoo:resnet-18
RUN_TRIALS ?= 300
RUN_DIR ?= build/run
run: venv
	mkdir -p $(RUN_DIR)
	$(PY) -m tunefarm tune $(RUN_MODEL) --trials $(RUN_TRIALS) --resume \
		--log $(RUN_DIR)/net.jsonl -o $(RUN_DIR)/net.tfa
