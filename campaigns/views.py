"""Campaign pages. Placeholder until the campaign browser lands."""

from django.shortcuts import render


def campaign_list(request):
    return render(request, "campaigns/list.html", {"campaigns": []})
