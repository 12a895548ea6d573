"""An account that still owns anything is neither deleted nor renamed, whatever the way in: the
admin, `manage.py shell` (`user.delete()`, `user.username = ...; user.save()`), a queryset's
`.delete()` (Django sends pre_delete for each row once a receiver listens). Files name their
owner by username, so a new account given a deleted one's name would own its private
characters and chats, and a renamed one would lose them to whoever took the old name. An
account that owns nothing is deleted or renamed, and what it keeps besides items (its
defaults, scripts, variables: chat/account_records.py) goes with it or moves to its new name
once the change is committed. The receivers are connected by chat/apps.py; the admin asks the
same checks first, for its words."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.utils.translation import ngettext

from chat.account_records import account_records_forget, account_records_move
from chat.models import Instance
from library.models import Background, Character, Lorebook, Persona
from personalab.lib.errors import Conflict
from personalab.storage import get_store

OWNED_MODELS = (Character, Background, Lorebook, Persona, Instance)


class AccountKept(Conflict):
    """Deleting or renaming this account would hand its files to another one."""

    code = "account_owns_items"


def account_owned_count(*, user: AbstractBaseUser) -> int:
    """The characters, backgrounds, lorebooks, personas and chats the index says it owns."""
    if user.pk is None:
        return 0
    return sum(model.objects.filter(owner_id=user.pk).count() for model in OWNED_MODELS)


def account_delete_check(*, user: AbstractBaseUser) -> None:
    owned = account_owned_count(user=user)
    if owned:
        raise AccountKept(ngettext(
            "%(username)s still owns %(count)d character, background, lorebook, persona or "
            "chat, so the account was kept: untick “Active” instead. Its files name it by "
            "username, so a new account given that name would own them.",
            "%(username)s still owns %(count)d characters, backgrounds, lorebooks, personas "
            "or chats, so the account was kept: untick “Active” instead. Its files name it "
            "by username, so a new account given that name would own them.",
            owned) % {"username": user.get_username(), "count": owned})


def account_rename_check(*, user: AbstractBaseUser) -> str | None:
    """Refused when `user` (unsaved) carries a new username and its saved row owns anything;
    the username it had when it is renamed, else None."""
    if user.pk is None:
        return None
    field = user.USERNAME_FIELD
    saved = (type(user)._base_manager.filter(pk=user.pk)
             .values_list(field, flat=True).first())
    if saved is None or saved == user.get_username():
        return None
    owned = account_owned_count(user=user)
    if owned:
        raise AccountKept(ngettext(
            "%(username)s still owns %(count)d character, background, lorebook, persona or "
            "chat, so it keeps its username: its files name it by username, and renamed it "
            "would lose them to a new account given the old name.",
            "%(username)s still owns %(count)d characters, backgrounds, lorebooks, personas "
            "or chats, so it keeps its username: its files name it by username, and renamed "
            "it would lose them to a new account given the old name.",
            owned) % {"username": saved, "count": owned})
    return saved


def _delete_refused(sender: Any, instance: AbstractBaseUser, **kwargs: Any) -> None:
    account_delete_check(user=instance)


def _rename_refused(sender: Any, instance: AbstractBaseUser, update_fields=None,
                    **kwargs: Any) -> None:
    if update_fields is not None and instance.USERNAME_FIELD not in update_fields:
        return  # a login's last_login, a password change: the name is not written
    instance._renamed_from = account_rename_check(user=instance)


def _records_moved(sender: Any, instance: AbstractBaseUser, **kwargs: Any) -> None:
    old = instance.__dict__.pop("_renamed_from", None)
    if old is not None:
        new = instance.get_username()
        transaction.on_commit(lambda: account_records_move(get_store(), old=old, new=new))


def _records_forgotten(sender: Any, instance: AbstractBaseUser, **kwargs: Any) -> None:
    username = instance.get_username()
    transaction.on_commit(lambda: account_records_forget(get_store(), username=username))


def account_guard_connect() -> None:
    user_model = get_user_model()
    pre_delete.connect(_delete_refused, sender=user_model, dispatch_uid="account_delete_refused")
    pre_save.connect(_rename_refused, sender=user_model, dispatch_uid="account_rename_refused")
    post_save.connect(_records_moved, sender=user_model, dispatch_uid="account_records_moved")
    post_delete.connect(_records_forgotten, sender=user_model,
                        dispatch_uid="account_records_forgotten")
