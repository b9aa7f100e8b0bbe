"""MedDiag Explorer: dual-channel Graph RAG for differential diagnosis, offline and inspectable."""

__version__ = "0.1.0"
