"""An account that still owns anything is neither deleted nor renamed from any way in, not only
the admin (tests/pages/test_admin_accounts.py): `manage.py shell`'s `user.delete()` or
`user.username = ...; user.save()`, a queryset's delete. Its files name it by username, so a new
account of the deleted one's name would own them, and a renamed one would lose them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import translation

from chat.accounts import AccountKept
from chat.import_export.import_check import (
    pending_import_read,
    pending_import_save,
    pending_imports_dir,
)
from library.lore.st_tag_list import st_tags_keep, st_tags_kept
from library.models import Character
from personalab.lib.filestore.account_modules import account_module_read, account_module_update
from personalab.lib.filestore.variables import account_variables_read, account_variables_update

pytestmark = pytest.mark.django_db


def test_deleting_an_account_that_owns_a_character_is_refused_and_says_why(
        alice, character, django_user_model):
    # the refusal rolls the delete back: in a shell's own transaction too, once it is caught
    with pytest.raises(AccountKept, match="alice still owns 1 character.*Active"), \
            transaction.atomic():
        django_user_model.objects.get(username="alice").delete()
    assert django_user_model.objects.filter(username="alice").exists()
    assert Character.objects.get(pk=character).owner_id == alice.pk


def test_a_queryset_delete_is_refused_whole(alice, bob, character, django_user_model):
    with pytest.raises(AccountKept), transaction.atomic():
        django_user_model.objects.filter(username__in=["alice", "bob"]).delete()
    assert django_user_model.objects.filter(username__in=["alice", "bob"]).count() == 2
    assert django_user_model.objects.filter(username="bob").delete()[0] == 1


def test_renaming_an_account_that_owns_a_character_is_refused(alice, character,
                                                              django_user_model):
    alice.username = "mallory"
    with translation.override("zh-hans"), pytest.raises(AccountKept, match="alice 仍拥有 1 个"):
        alice.save()
    assert django_user_model.objects.get(pk=alice.pk).username == "alice"
    alice.username = "alice"
    alice.first_name = "Alice"
    alice.save()
    alice.save(update_fields=["last_login"])
    assert django_user_model.objects.get(pk=alice.pk).first_name == "Alice"


def test_an_account_that_owns_nothing_is_renamed_and_deleted(bob, django_user_model):
    bob.username = "robert"
    bob.save()
    bob.delete()
    assert not django_user_model.objects.filter(username__in=["bob", "robert"]).exists()


def test_createsuperuser_still_works(django_user_model):
    call_command("createsuperuser", username="root", email="", interactive=False, verbosity=0)
    assert django_user_model.objects.get(username="root").is_superuser


RECORD_MODULES = ("generation", "reading", "prompt_presets", "world_info_global")
TAG_ID = "1700000000001"


def _records_given(store, username):
    """An account's records besides items, one of each kind, written as the services keep them
    (generation and reading as an older version kept them, in the module's shared file)."""
    for module in RECORD_MODULES[:2]:
        store.module_update(module, lambda m, module=module: {
            **m, "accounts": {**m.get("accounts", {}), username: {"mark": f"{module} secret"}}})
    for module in RECORD_MODULES[2:]:
        account_module_update(store, module=module, username=username,
                              change=lambda r, module=module: {"accounts": {"mark": module}})
    account_module_update(store, module="regex_scripts", username=username,
                          change=lambda r: {"accounts": [{"scriptName": "secret"}],
                                            "allowed_cards": {"char_x": "fingerprint"}})
    account_variables_update(store, username=username, changes={"diary": "secret"})
    st_tags_keep(store, username=username, names={TAG_ID: "secret tag"})
    return pending_import_save(store, user=SimpleNamespace(get_username=lambda: username),
                               data=b"{}", file_name="waiting.jsonl")


def _records_of(store, username):
    found = {module: account_module_read(store, module=module, username=username).get("accounts")
             for module in (*RECORD_MODULES, "regex_scripts")}
    found["allowed_cards"] = account_module_read(
        store, module="regex_scripts", username=username,
        keys=("accounts", "allowed_cards")).get("allowed_cards")
    found["variables"] = account_variables_read(store, username=username) or None
    found["tags"] = st_tags_kept(store, username=username) or None
    found["pending"] = [p.name for p in pending_imports_dir(store, username=username).glob("*")]
    return found


def test_a_deleted_account_takes_its_records_along_so_a_new_one_of_its_name_reads_none(
        store, bob, django_user_model, django_capture_on_commit_callbacks):
    _records_given(store, "bob")
    _records_given(store, "carol")
    with django_capture_on_commit_callbacks(execute=True):
        bob.delete()
    django_user_model.objects.create_user(username="bob", password="x")
    assert _records_of(store, "bob") == {**dict.fromkeys(
        (*RECORD_MODULES, "regex_scripts", "allowed_cards", "variables", "tags")), "pending": []}
    assert all(_records_of(store, "carol").values())  # another account's stay


def test_a_renamed_account_keeps_its_records_under_its_new_name(
        store, bob, django_capture_on_commit_callbacks):
    token = _records_given(store, "bob")
    before = _records_of(store, "bob")
    store.module_update("reading", lambda m: {  # left by a deleted account of the new name
        **m, "accounts": {**m["accounts"], "robert": {"mark": "nobody's"}}})
    with django_capture_on_commit_callbacks(execute=True):
        bob.username = "robert"
        bob.save()
    assert _records_of(store, "robert") == before
    assert not any(_records_of(store, "bob").values())
    assert pending_import_read(store, user=bob, token=token)[1] == "waiting.jsonl"
