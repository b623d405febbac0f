# Developer entry points. Everything runs through the project virtual environment in .venv.

PY ?= .venv/bin/python
VENV_STAMP := .venv/.stamp

.PHONY: venv venv-tools deps deps-ensure test test-quick lint lint-imports golden bench bench-int8 bench-kernels bench-tuners bench-networks bench-gpu bench-gpu-network bench-autoscheduler bench-metaschedule bench-time-to-quality run docker-build k8s-render bench-pipeline serve

venv: $(VENV_STAMP)

# What `make run` needs besides Python: gcc, and python3-venv until .venv exists
# (tools/deps.sh installs them as root, else names them).
venv-tools:
	@tools/deps.sh ensure gcc $(if $(wildcard $(VENV_STAMP)),,python3-venv) >/dev/null

# Rebuild the environment only when the package metadata changes.
$(VENV_STAMP): shared/pyproject.toml services/pyproject.toml
	python3 -m venv .venv
	.venv/bin/python -m pip install -q --upgrade pip
	.venv/bin/python -m pip install -q -e './shared[dev,services,cuda]' -e ./services
	touch $(VENV_STAMP)

# The system tools of every test tier (tools/deps.sh, as .ci/run): `make test` installs what
# is missing when it runs as root, else stops naming it and `make deps` (as root) to install
# it; SKIP_DEPS=1 runs the tests anyway, the tiers without their tools skipped.
deps:
	tools/deps.sh install

deps-ensure:
	$(if $(SKIP_DEPS),,tools/deps.sh ensure)

# Two pytest processes at once: the tiers that share the test Redis and start the services
# (SERVICE_TESTS) run one after another in one of them, everything else in the other; the
# services' output is printed after the rest. Either failing fails the target.
SERVICE_TESTS := tests/integration tests/browser tests/fuzz/test_api_hardening.py \
	tests/fuzz/test_api_hostile.py tests/fuzz/test_api_schemathesis.py
test: deps-ensure venv lint lint-imports
	@mkdir -p build
	@$(PY) -m pytest $(SERVICE_TESTS) -q -rs -m "not gpu" -p no:cacheprovider \
		> build/test-services.log 2>&1 & services=$$!; \
	$(PY) -m pytest tests -q -rs -m "not gpu" $(addprefix --ignore=,$(SERVICE_TESTS)); rest=$$?; \
	wait $$services; svc=$$?; \
	echo "== the service tiers (build/test-services.log)"; cat build/test-services.log; \
	[ $$rest -eq 0 ] && [ $$svc -eq 0 ]

# The unit tier alone: nothing but the venv and gcc (a few minutes).
test-quick: venv-tools venv
	$(PY) -m pytest tests/unit -q -m "not gpu"

# The import contracts in pyproject.toml: layers import only downward, and no layer but the
# backends' own reaches into a backend's modules.
lint-imports: venv
	.venv/bin/lint-imports

# Rewrite the golden files of generated code (tests/golden/) after a change to a kernel that is
# meant; review the diff and commit it with the change.
golden: venv
	TUNEFARM_UPDATE_GOLDEN=1 $(PY) -m pytest tests/unit/test_golden.py -q

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

bench-kernels: venv
	$(PY) benchmarks/kernels.py

bench: bench-kernels bench-tuners bench-networks bench-pipeline

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

# On a machine with an NVIDIA GPU, nvcc and PyTorch: the ResNet-50 convs tuned on the cuda
# target against PyTorch's cuDNN conv, in one run. Options: BENCH_GPU_ARGS (e.g. "--trials 64").
BENCH_GPU_ARGS ?=
bench-gpu: venv
	$(PY) benchmarks/gpu.py $(BENCH_GPU_ARGS)

# On a GPU machine: resnet-50 tuned as a whole network against PyTorch eager and max-autotune.
bench-gpu-network: venv
	$(PY) benchmarks/gpu_network.py $(BENCH_GPU_NETWORK_ARGS)

# The sketch policy against the template policy, the default schedule and ONNX Runtime per op:
# the 11 ResNet-18 convs and the 7 BERT-base ops on one core (long: ~2.5 h). Whole networks
# by the sketch policy: BENCH_AUTOSCHEDULER_ARGS="--ops none --networks resnet-18,bert-base
# --network-trials 1000 --target 'cpu -cores=1'".
BENCH_AUTOSCHEDULER_ARGS ?= --ops resnet18-convs,bert --trials 64,256 --rounds 3 \
	--target "cpu -cores=1" --json benchmarks/results-autoscheduler-all.json
bench-autoscheduler: venv
	$(PY) benchmarks/autoscheduler.py $(BENCH_AUTOSCHEDULER_ARGS)

# Against Apache TVM's MetaSchedule at equal trials (TVM in its own environment, made on first
# use under benchmarks/.tvm).
bench-metaschedule: venv
	$(PY) benchmarks/metaschedule.py $(BENCH_METASCHEDULE_ARGS)

# Time to quality: the sketch policy, the template policy and MetaSchedule searching for equal
# wall time, each best-so-far re-timed at checkpoints by one interleaved timer. BENCH_TTQ_ARGS,
# e.g. --budget-scale 0.1 --tvm-python /path/to/tvm/bin/python (MetaSchedule skipped without).
BENCH_TTQ_ARGS ?=
bench-time-to-quality: venv
	$(PY) benchmarks/time_to_quality.py $(BENCH_TTQ_ARGS) --json benchmarks/results-time-to-quality.json --png benchmarks/results-time-to-quality.png

# int8: per-layer int8 conv GOPS against ONNX Runtime's QLinearConv and our float32, and
# resnet-18 int8 against ONNX Runtime int8 (quantize_static QDQ) and float32. BENCH_INT8_ARGS.
BENCH_INT8_ARGS ?=
bench-int8: venv
	$(PY) benchmarks/int8.py $(BENCH_INT8_ARGS)

# The main job: tune a zoo network on this CPU in embedded mode (no broker), compile it,
# check it against ONNX Runtime and print its latency next to untuned and ONNX Runtime.
# A rerun resumes from the log (nothing is measured twice).
RUN_MODEL ?= zoo:resnet-18
RUN_TRIALS ?= 300
RUN_DIR ?= build/run
run: venv-tools venv
	mkdir -p $(RUN_DIR)
	$(PY) -m tunefarm tune $(RUN_MODEL) --trials $(RUN_TRIALS) --resume \
		--log $(RUN_DIR)/net.jsonl -o $(RUN_DIR)/net.tfa

# The one service image (docker/Dockerfile). BuildKit is required: it reads
# docker/Dockerfile.dockerignore and the Dockerfile's RUN --mount.
IMAGE ?= tunefarm:0.1.0
docker-build:
	DOCKER_BUILDKIT=1 docker build -f docker/Dockerfile -t $(IMAGE) .

# Kubernetes manifests as applied: the base and each overlay into build/k8s/<name>.yaml.
K8S_DIR ?= build/k8s
k8s-render:
	mkdir -p $(K8S_DIR)
	kubectl kustomize deploy/base > $(K8S_DIR)/base.yaml
	kubectl kustomize deploy/overlays/small > $(K8S_DIR)/small.yaml
	kubectl kustomize deploy/overlays/large > $(K8S_DIR)/large.yaml

# Embedded against the services: trials per second and agent busy share (needs Redis).
bench-pipeline: venv
	$(PY) benchmarks/pipeline.py $(BENCH_PIPELINE_ARGS)

# The whole service stack as local processes (no containers): gateway on
# http://127.0.0.1:$(SERVE_PORT), one agent with key "local", and a private redis-server with
# an append-only file in build/stack/redis (the manifests' persistence: job state survives a
# restart of it). Ctrl-C stops it. SERVE_REDIS_DIR= uses TUNEFARM_BROKER_URL's Redis instead.
SERVE_PORT ?= 8080
SERVE_TOKENS ?= build/stack/tokens.txt
SERVE_REDIS_DIR ?= build/stack/redis
serve: venv
	mkdir -p build/stack
	test -f $(SERVE_TOKENS) || echo "$$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(24))') read,submit,admin local-admin" > $(SERVE_TOKENS)
	@echo "API token (also for the web UI login): $$(cut -d' ' -f1 $(SERVE_TOKENS))"
	TUNEFARM_TOKENS_FILE=$(SERVE_TOKENS) $(PY) -m tunefarm serve stack --port $(SERVE_PORT) \
		--log-dir build/stack $(if $(SERVE_REDIS_DIR),--redis-dir $(SERVE_REDIS_DIR))
