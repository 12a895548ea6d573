"""Test-only URLconf: the project's URLs plus chat.history_urls, until chat/urls.py includes it."""

from django.urls import include, path

from personalab.urls import urlpatterns as project_urlpatterns

urlpatterns = [
    path("instances/<str:instance_id>/", include("chat.history_urls")),
    *project_urlpatterns,
]
