"""ONNX import and the model zoo (layer 6)."""
