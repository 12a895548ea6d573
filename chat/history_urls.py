"""History manager and persona pages of one instance; included by chat/urls.py under
instances/<str:instance_id>/."""

from django.urls import path

from chat import history_views

urlpatterns = [
    path("history/", history_views.history_page, name="history"),
    path("history/rows", history_views.history_rows, name="history_rows"),
    path("history/related", history_views.history_related, name="history_related"),
    path("history/edit", history_views.history_edit, name="history_edit"),
    path("history/delete", history_views.history_delete, name="history_delete"),
    path("history/hide", history_views.history_hide, name="history_hide"),
    path("history/undo", history_views.history_undo, name="history_undo"),
    path("history/swipe", history_views.history_swipe, name="history_swipe"),
    path("persona/", history_views.persona_page, name="persona"),
    path("persona/<str:action>", history_views.persona_action, name="persona_action"),
]
