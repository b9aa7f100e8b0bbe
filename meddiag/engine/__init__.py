"""The dual-channel LangGraph engine; the entry point is `meddiag.engine.api` (`Engine.ask` → `AskResult`)."""
