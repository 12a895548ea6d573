"""An account that still owns anything is neither deleted nor renamed from any way in, not only
the admin (tests/pages/test_admin_accounts.py): `manage.py shell`'s `user.delete()` or
`user.username = ...; user.save()`, a queryset's delete. Its files name it by username, so a new
account of the deleted one's name would own them, and a renamed one would lose them."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import translation

from chat.accounts import AccountKept
from library.models import Character

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
