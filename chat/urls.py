from django.urls import include, path

from chat.pages import aside_form, memory_buttons, message_forms
from chat.pages import chat as views
from chat.pages import generation as generation_views
from chat.pages import import_report as import_report_views
from chat.pages import imports as import_views
from chat.pages import members as member_views
from chat.pages import message as message_views
from chat.pages import regex_allow as regex_allow_views
from chat.pages import send as send_views
from chat.pages import settings_page as settings_views
from chat.pages import variables as variable_views

urlpatterns = [
    path("", views.home, name="home"),
    path("instances/new", views.instance_new, name="instance_new"),
    path("chats/import", import_views.chat_import_page, name="chat_import_new"),
    path("chats/import/cancel", import_views.chat_import_cancel, name="chat_import_cancel"),
    path("instances/<str:instance_id>/", views.instance_page, name="instance"),
    path("instances/<str:instance_id>/manage", views.instance_manage, name="instance_manage"),
    path("instances/<str:instance_id>/messages", views.instance_messages, name="instance_messages"),
    path("instances/<str:instance_id>/messages/line", message_views.message_line,
         name="message_line"),
    path("instances/<str:instance_id>/messages/change", message_forms.message_form,
         name="message_form"),
    path("instances/<str:instance_id>/messages/<str:session_id>/<int:index>/",
         message_forms.message_page, name="message_page"),
    path("instances/<str:instance_id>/send", send_views.instance_send, name="instance_send"),
    path("instances/<str:instance_id>/outline", views.instance_outline, name="instance_outline"),
    path("instances/<str:instance_id>/import_chat", views.instance_import_chat,
         name="instance_import_chat"),
    path("instances/<str:instance_id>/persona", views.instance_persona,
         name="instance_persona"),
    path("instances/<str:instance_id>/import_report/dismiss",
         import_report_views.import_report_dismiss, name="import_report_dismiss"),
    path("instances/<str:instance_id>/play_as", views.instance_play_as,
         name="instance_play_as"),
    path("instances/<str:instance_id>/regroup", views.instance_regroup,
         name="instance_regroup"),
    path("instances/<str:instance_id>/lorebooks", views.instance_lorebooks,
         name="instance_lorebooks"),
    path("instances/<str:instance_id>/generation", generation_views.instance_generation,
         name="instance_generation"),
    path("instances/<str:instance_id>/regex_scripts", regex_allow_views.instance_regex_scripts,
         name="instance_regex_scripts"),
    path("instances/<str:instance_id>/members", member_views.instance_members,
         name="instance_members"),
    path("generation/defaults", generation_views.account_generation, name="account_generation"),
    path("instances/<str:instance_id>/background", views.instance_background,
         name="instance_background"),
    path("instances/<str:instance_id>/aside", aside_form.instance_aside, name="instance_aside"),
    path("instances/<str:instance_id>/memory/progress", memory_buttons.instance_memory_progress,
         name="instance_memory_progress"),
    path("instances/<str:instance_id>/memory/<str:action>", memory_buttons.instance_memory_action,
         name="instance_memory_action"),
    path("instances/<str:instance_id>/authors_note", views.instance_authors_note,
         name="instance_authors_note"),
    path("instances/<str:instance_id>/variables", variable_views.instance_variables,
         name="instance_variables"),
    path("instances/<str:instance_id>/", include("chat.pages.history_urls")),
    path("traces/<str:trace_id>/", views.trace_page, name="trace"),
    path("settings/", settings_views.settings_page, name="settings"),
    path("settings/test_connection", settings_views.settings_test_connection,
         name="settings_test_connection"),
]
