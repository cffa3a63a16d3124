"""Helpers the robustness tests share, and the worker scripts they run in other processes."""
