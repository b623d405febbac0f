"""The network job as library calls: the one recipe `tunefarm tune` and the services share.

    from tunefarm.frontend.models import load_model
    from tunefarm.recipe import JobOptions, run_job

    model, graph = load_model("zoo:resnet-18")
    result = run_job(model, graph, JobOptions(trials=300), "r18.jsonl", "r18.tfa")

`job` holds the steps (extract, tune, compile, evaluate on the device, deliver) and
`run_job`, which runs them in order in one process; `reference` the comparison with ONNX
Runtime that every delivered network passes.
"""

from tunefarm.recipe.job import (
    LOCAL_DEVICE_KEY,
    TOLERANCE,
    Builds,
    Evaluation,
    JobOptions,
    JobResult,
    RecipeError,
    check_log,
    compile_builds,
    deliver,
    evaluate,
    network_settings,
    print_tasks,
    run_job,
    tolerance_for,
    tune_network,
)
from tunefarm.recipe.reference import (
    EndToEnd,
    end_to_end,
    onnxruntime_outputs,
    onnxruntime_session,
    relative_error,
)

__all__ = [
    "LOCAL_DEVICE_KEY",
    "TOLERANCE",
    "tolerance_for",
    "Builds",
    "EndToEnd",
    "Evaluation",
    "JobOptions",
    "JobResult",
    "RecipeError",
    "check_log",
    "compile_builds",
    "deliver",
    "end_to_end",
    "evaluate",
    "network_settings",
    "onnxruntime_outputs",
    "onnxruntime_session",
    "print_tasks",
    "relative_error",
    "run_job",
    "tune_network",
]
