"""Index rows for the library. The definition files are the truth (SPEC §1)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower, Trim
from django.utils.translation import gettext_lazy as _

VISIBILITIES = [("private", _("private")), ("shared", _("shared"))]


class Owned(models.Model):
    """Who wrote an item and whether others may see and use it (SPEC §10 "Ownership").
    The definition file records the owner's username; this row follows it on reindex."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+", verbose_name=_("owner"))
    visibility = models.CharField(_("visibility"), max_length=10, choices=VISIBILITIES,
                                  default="shared")

    class Meta:
        abstract = True


class Character(Owned):
    character_id = models.CharField(_("character id"), max_length=64, primary_key=True)
    name = models.CharField(_("name"), max_length=200)
    tags = models.CharField(_("tags"), max_length=500, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta(Owned.Meta):
        ordering = ["name"]
        verbose_name, verbose_name_plural = _("character"), _("characters")
        # What a picker asks of another account's 5,000 shared characters without reading
        # them all: the newest few, and the namesakes of those it shows
        # (library/character_picker.py).
        indexes = [models.Index(fields=["-updated_at"], name="character_newest"),
                   models.Index(Lower(Trim("name")), name="character_name_key")]

    def __str__(self) -> str:
        return self.name


class Background(Owned):
    background_id = models.CharField(_("background id"), max_length=64, primary_key=True)
    name = models.CharField(_("name"), max_length=200)
    outline_length = models.PositiveIntegerField(_("outline length"), default=0)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta(Owned.Meta):
        ordering = ["name"]
        verbose_name, verbose_name_plural = _("background"), _("backgrounds")

    def __str__(self) -> str:
        return self.name


class Lorebook(Owned):
    lorebook_id = models.CharField(_("lorebook id"), max_length=64, primary_key=True)
    name = models.CharField(_("name"), max_length=200)
    entry_count = models.PositiveIntegerField(_("entry count"), default=0)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta(Owned.Meta):
        ordering = ["name"]
        verbose_name, verbose_name_plural = _("lorebook"), _("lorebooks")

    def __str__(self) -> str:
        return self.name


class Persona(models.Model):
    """The player's side of a conversation (SillyTavern's persona): `{{user}}` and a description."""

    persona_id = models.CharField(_("persona id"), max_length=64, primary_key=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="personas",
                              verbose_name=_("owner"))
    name = models.CharField(_("name"), max_length=200)
    visibility = models.CharField(_("visibility"), max_length=10, default="private")
    is_default = models.BooleanField(_("is default"), default=False)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ["name", "persona_id"]
        verbose_name, verbose_name_plural = _("persona"), _("personas")

    def __str__(self) -> str:
        return self.name
