from django.urls import include, path

from chat import generation_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("instances/new", views.instance_new, name="instance_new"),
    path("instances/<str:instance_id>/", views.instance_page, name="instance"),
    path("instances/<str:instance_id>/messages", views.instance_messages, name="instance_messages"),
    path("instances/<str:instance_id>/outline", views.instance_outline, name="instance_outline"),
    path("instances/<str:instance_id>/import_chat", views.instance_import_chat,
         name="instance_import_chat"),
    path("instances/<str:instance_id>/persona", views.instance_persona,
         name="instance_persona"),
    path("instances/<str:instance_id>/generation", generation_views.instance_generation,
         name="instance_generation"),
    path("instances/<str:instance_id>/background", views.instance_background,
         name="instance_background"),
    path("instances/<str:instance_id>/memory/progress", views.instance_memory_progress,
         name="instance_memory_progress"),
    path("instances/<str:instance_id>/memory/<str:action>", views.instance_memory_action,
         name="instance_memory_action"),
    path("instances/<str:instance_id>/authors_note", views.instance_authors_note,
         name="instance_authors_note"),
    path("instances/<str:instance_id>/", include("chat.history_urls")),
    path("traces/<str:trace_id>/", views.trace_page, name="trace"),
    path("settings/", views.settings_page, name="settings"),
]
