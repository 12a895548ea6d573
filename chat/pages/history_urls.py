"""History manager and persona pages of one instance; included by chat/urls.py under
instances/<str:instance_id>/."""

from django.urls import path

from chat.pages import history as history_views

urlpatterns = [
    path("history/", history_views.history_page, name="history"),
    path("history/rows", history_views.history_rows, name="history_rows"),
    path("history/related", history_views.history_related, name="history_related"),
    path("persona/", history_views.persona_page, name="persona"),
    path("persona/<str:action>", history_views.persona_action, name="persona_action"),
]
