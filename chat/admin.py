from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, Permission
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _

from chat.accounts import account_delete_check, account_owned_count
from chat.models import ApiToken, Instance, Session, Trace
from library.admin import FileDeleteAdmin


class IndexOnlyAdmin(admin.ModelAdmin):
    """Rows that only index the data folder: shown here, created, changed and archived from the
    app (the files are the truth; an admin form could not write them, and a deleted row would
    come back with the next reindex)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Instance)
class InstanceAdmin(IndexOnlyAdmin):
    list_display = ["instance_id", "owner", "character", "background", "current_session_id",
                    "created_at"]


admin.site.register(Session, IndexOnlyAdmin)
admin.site.register(Trace, IndexOnlyAdmin)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Issues a token as `create_api_token` does and shows it once; lists whose each one is, to
    revoke it. Its form asked for the hash: a token typed there never worked, and a changed
    row moved a token to another account."""

    list_display = ["user", "created_at", "hash_start"]
    search_fields = ["user__username"]
    readonly_fields = ["hash_start", "created_at"]

    @admin.display(description=_("token hash"))
    def hash_start(self, obj: ApiToken) -> str:
        return f"{obj.token_hash[:12]}…"

    def get_fields(self, request, obj=None):
        return ["user", "hash_start", "created_at"] if obj else ["user"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def save_model(self, request, obj, form, change) -> None:
        request.api_token_issued = ApiToken.token_new()
        obj.token_hash = ApiToken.hash(request.api_token_issued)
        obj.save()

    def response_add(self, request, obj, post_url_continue=None):
        # the token, once, on this page only: never in a message kept in the session or a cookie
        return TemplateResponse(request, "admin/chat/apitoken/issued.html", {
            **self.admin_site.each_context(request), "opts": self.opts,
            "title": _("API token issued"), "token": request.api_token_issued,
            "token_user": obj.user})


# the words of a model's own permissions, which Django stores in English ("Can add %s")
PERMISSION_WORDS = {"add": _("Can add %(name)s"), "change": _("Can change %(name)s"),
                    "delete": _("Can delete %(name)s"), "view": _("Can view %(name)s")}


def permission_label(permission: Permission) -> str:
    """A model's own four permissions in the reader's language: Django stores their names in
    English once ("Can add access attempt") and shows them so in every language."""
    model = permission.content_type.model_class()
    if model is not None:
        opts = model._meta
        action = permission.codename.removesuffix(f"_{opts.model_name}")
        said = PERMISSION_WORDS.get(action)
        if said is not None and permission.name == f"Can {action} {opts.verbose_name_raw}":
            return f"{permission.content_type} | {said % {'name': opts.verbose_name}}"
    return str(permission)


class PermissionLabels(admin.ModelAdmin):
    def formfield_for_manytomany(self, db_field, request=None, **kwargs):
        field = super().formfield_for_manytomany(db_field, request=request, **kwargs)
        if field is not None and db_field.remote_field.model is Permission:
            field.label_from_instance = permission_label
        return field


class GroupPermissionsAdmin(PermissionLabels, GroupAdmin):
    pass


class AccountAdmin(PermissionLabels, FileDeleteAdmin, UserAdmin):
    """An account that still owns anything is not deleted (untick "Active" instead, as Django's
    own help says) nor renamed: its files name their owner by username, and a new account given
    that name read and changed the deleted one's private characters and chats (a newcomer's
    pass); a renamed one lost them."""

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if "is_staff" in form.base_fields:
            # Django's help says only "can log into this admin site"
            form.base_fields["is_staff"].help_text = _(
                "Staff also read and change every account's private characters, lorebooks, "
                "personas and chats, and the site's settings, in the app and its API.")
        return form

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        owned = obj is not None and account_owned_count(user=obj)
        return [*fields, "username"] if owned else fields

    def item_delete(self, request, obj) -> None:
        # asked before the delete: the receiver's refusal inside the admin's transaction would
        # leave it unusable for the rest of the request
        account_delete_check(user=obj)
        obj.delete()


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), AccountAdmin)
admin.site.unregister(Group)
admin.site.register(Group, GroupPermissionsAdmin)
