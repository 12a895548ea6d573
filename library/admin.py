"""Admin edits go through the same services as the authors' UI: file first, then the index."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from library.background_services import background_delete, background_save
from library.character_services import character_delete, character_save
from library.lore import services as lorebook_services
from library.models import Background, Character, Lorebook
from library.refusal_words import refusal_words
from personalab.lib.errors import AppError
from personalab.storage import get_store


class FileDeleteAdmin(admin.ModelAdmin):
    """Deletes go through the library's services (an index row deleted alone would come back with
    the next reindex); one refused (in use) is said, and never reported as deleted."""

    def item_delete(self, request, obj) -> None:
        raise NotImplementedError

    def delete_model(self, request, obj):
        refused = request.__dict__.setdefault("library_refused", [])
        try:
            self.item_delete(request, obj)
        except AppError as exc:
            refused.append(obj)
            messages.error(request, refusal_words(str(exc)))  # in use: in the reader's words

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)
        request.library_deleted = len(queryset) - len(request.library_refused)

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        refused = request.__dict__.get("library_refused")
        if refused and level == messages.SUCCESS:
            # Django's "deleted successfully": only what was deleted is said to be.
            deleted = getattr(request, "library_deleted", 0)
            if not deleted:
                return None
            message = ngettext("Deleted %(count)d; the one refused above was kept.",
                               "Deleted %(count)d; the %(kept)d refused above were kept.",
                               len(refused)) % {"count": deleted, "kept": len(refused)}
        return super().message_user(request, message, level, *args, **kwargs)


class CharacterForm(forms.ModelForm):
    base_persona = forms.CharField(label=_("Base persona"), widget=forms.Textarea,
                                   required=False)
    greeting = forms.CharField(label=_("Greeting"), widget=forms.Textarea, required=False)

    class Meta:
        model = Character
        fields = ["character_id", "name", "tags"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance and self.instance.pk:
            definition = get_store().character_read(self.instance.pk)
            self.fields["base_persona"].initial = definition.get("base_persona", "")
            self.fields["greeting"].initial = definition.get("greeting", "")


@admin.register(Character)
class CharacterAdmin(FileDeleteAdmin):
    form = CharacterForm
    list_display = ["character_id", "name", "tags", "owner", "visibility"]
    list_filter = ["visibility"]
    search_fields = ["character_id", "name", "tags"]

    def get_readonly_fields(self, request, obj=None):
        return ["character_id"] if obj else []

    def save_model(self, request, obj, form, change):
        data = {**form.cleaned_data, "character_id": obj.character_id}
        character_save(get_store(), data=data,
                       character_id=obj.character_id if change else None)

    def item_delete(self, request, obj) -> None:
        character_delete(get_store(), character_id=obj.character_id)


class BackgroundForm(forms.ModelForm):
    world_setting = forms.CharField(label=_("World setting"), widget=forms.Textarea,
                                    required=False)
    story_outline = forms.CharField(label=_("Story outline"), widget=forms.Textarea,
                                    required=False,
                                    help_text=_("One outline point per line, in order."))

    class Meta:
        model = Background
        fields = ["background_id", "name"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance and self.instance.pk:
            background = get_store().background_read(self.instance.pk)
            self.fields["world_setting"].initial = background.get("world_setting", "")
            self.fields["story_outline"].initial = "\n".join(
                p["content"] for p in background.get("story_outline", []))


@admin.register(Background)
class BackgroundAdmin(FileDeleteAdmin):
    form = BackgroundForm
    list_display = ["background_id", "name", "outline_length", "owner", "visibility"]
    list_filter = ["visibility"]
    search_fields = ["background_id", "name"]

    def get_readonly_fields(self, request, obj=None):
        return ["background_id"] if obj else []

    def save_model(self, request, obj, form, change):
        data = {**form.cleaned_data, "background_id": obj.background_id,
                "story_outline": form.cleaned_data["story_outline"].splitlines()}
        background_save(get_store(), data=data,
                        background_id=obj.background_id if change else None)

    def item_delete(self, request, obj) -> None:
        background_delete(get_store(), background_id=obj.background_id)


@admin.register(Lorebook)
class LorebookAdmin(FileDeleteAdmin):
    list_display = ["lorebook_id", "name", "entry_count", "owner", "visibility"]
    list_filter = ["visibility"]
    readonly_fields = ["lorebook_id", "name", "entry_count", "content"]

    def item_delete(self, request, obj) -> None:
        lorebook_services.lorebook_remove(get_store(), actor=request.user,
                                           lorebook_id=obj.lorebook_id)

    @admin.display(description=_("Content"))
    def content(self, obj):
        return json.dumps(get_store().lorebook_read(obj.lorebook_id), ensure_ascii=False,
                          indent=2)
