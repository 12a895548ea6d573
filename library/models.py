"""Index rows for the library. The definition files are the truth (SPEC §1)."""

from __future__ import annotations

from django.db import models


class Character(models.Model):
    character_id = models.CharField(max_length=64, primary_key=True)
    name = models.CharField(max_length=200)
    tags = models.CharField(max_length=500, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Background(models.Model):
    background_id = models.CharField(max_length=64, primary_key=True)
    name = models.CharField(max_length=200)
    outline_length = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Lorebook(models.Model):
    lorebook_id = models.CharField(max_length=64, primary_key=True)
    name = models.CharField(max_length=200)
    entry_count = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
