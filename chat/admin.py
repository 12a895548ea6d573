from django.contrib import admin

from chat.models import ApiToken, Instance, Session, Trace


@admin.register(Instance)
class InstanceAdmin(admin.ModelAdmin):
    list_display = ["instance_id", "owner", "character", "background", "current_session_id"]
    readonly_fields = ["instance_id", "owner", "character", "background", "current_session_id",
                       "created_at"]


admin.site.register(Session)
admin.site.register(Trace)
admin.site.register(ApiToken)
