"""The one error enum of the measure layer.

Every failure of a candidate, from codegen to timing, is reported as one of these codes plus
a message in a result object; nothing in the measure layer raises for a bad candidate. The
numbering is stable because it is written into tuning records.
"""

from __future__ import annotations

from enum import IntEnum


class MeasureErrorNo(IntEnum):
    """Why a candidate has no valid cost. Stored as its int value in records."""

    NO_ERROR = 0
    INSTANTIATION_ERROR = 1  # config invalid for the template, or code generation failed
    BUILD_ERROR = 2  # the compiler rejected the source (or the build worker died)
    BUILD_TIMEOUT = 3  # the compiler (or the generator) ran past the build timeout
    RUNTIME_ERROR = 4  # crash, signal, nonzero return code or exception while running
    WRONG_ANSWER = 5  # ran fine but an output differs from the reference
    RUN_TIMEOUT = 6  # the measurement ran past the run timeout and was killed
    UNKNOWN_ERROR = 7  # anything else


class DeviceLimitError(ValueError):
    """A candidate that breaks a limit of its device (threads per block, shared memory per
    block, registers): raised while generating its source, recorded as a BUILD_ERROR whose
    message names the limit and the value, so tuning goes on with the next candidate."""
