"""Index rows for instances, sessions and traces. The files under the data folder are the truth."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Instance(models.Model):
    instance_id = models.CharField(_("instance id"), max_length=64, primary_key=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="instances",
                              verbose_name=_("owner"))
    character = models.ForeignKey("library.Character", null=True, on_delete=models.SET_NULL,
                                  related_name="instances", db_constraint=False,
                                  verbose_name=_("character"))
    background = models.ForeignKey("library.Background", null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="instances",
                                   db_constraint=False, verbose_name=_("background"))
    current_session_id = models.CharField(_("current session id"), max_length=64)
    created_at = models.CharField(_("created at"), max_length=40)

    class Meta:
        ordering = ["-created_at", "instance_id"]
        verbose_name, verbose_name_plural = _("instance"), _("instances")

    def __str__(self) -> str:
        return self.instance_id


class Session(models.Model):
    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="sessions",
                                 verbose_name=_("instance"))
    session_id = models.CharField(_("session id"), max_length=64)
    continued_from = models.CharField(_("continued from"), max_length=64, blank=True)
    created_at = models.CharField(_("created at"), max_length=40, blank=True)

    class Meta:
        ordering = ["instance_id", "session_id"]
        verbose_name, verbose_name_plural = _("session"), _("sessions")
        constraints = [models.UniqueConstraint(fields=["instance", "session_id"],
                                               name="unique_session_per_instance")]

    def __str__(self) -> str:
        return f"{self.instance_id}/{self.session_id}"


class Trace(models.Model):
    trace_id = models.CharField(_("trace id"), max_length=64, primary_key=True)
    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="traces",
                                 verbose_name=_("instance"))
    session_id = models.CharField(_("session id"), max_length=64)
    turn = models.PositiveIntegerField(_("turn"), default=0)
    created_at = models.CharField(_("created at"), max_length=40, blank=True)
    # The point of a reply's marker the director did not take because the beat was held (its
    # trace's director_result.held_marker): the chat page draws that badge as not taken.
    held_point = models.PositiveIntegerField(_("held marker's point"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name, verbose_name_plural = _("trace"), _("traces")


class ApiToken(models.Model):
    """Only a hash is stored; the token itself is shown once by create_api_token."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="api_tokens", verbose_name=_("user"))
    token_hash = models.CharField(_("token hash"), max_length=64, unique=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name, verbose_name_plural = _("API token"), _("API tokens")

    @staticmethod
    def hash(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    @staticmethod
    def token_new() -> str:
        return "pl_" + secrets.token_urlsafe(32)

    @classmethod
    def issue(cls, user) -> str:
        token = cls.token_new()
        cls.objects.create(user=user, token_hash=cls.hash(token))
        return token

    @classmethod
    def user_for(cls, token: str):
        """The active user a bearer token belongs to, or None."""
        row = cls.objects.select_related("user").filter(token_hash=cls.hash(token)).first()
        return row.user if row and row.user.is_active else None


class ConversationParticipant(models.Model):
    """Index of the conversation ledger: one row per participant of an instance (the player as
    `player:{username}`); `conv_key` is the sorted participant ids joined by `|`."""

    instance = models.ForeignKey(Instance, on_delete=models.CASCADE, related_name="participants",
                                 verbose_name=_("instance"))
    participant_id = models.CharField(_("participant id"), max_length=200, db_index=True)
    conv_key = models.CharField(_("conversation key"), max_length=2000, db_index=True)

    class Meta:
        ordering = ["instance_id", "participant_id"]
        verbose_name = _("conversation participant")
        verbose_name_plural = _("conversation participants")
        constraints = [models.UniqueConstraint(fields=["instance", "participant_id"],
                                               name="unique_participant_per_instance")]
