"""reasoning"""
