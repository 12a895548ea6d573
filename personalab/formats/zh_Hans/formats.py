# Counts read "50,000" on a 中文 page, as the browser's Intl.NumberFormat("zh-Hans") writes
# them in the page's scripts: Django's zh_Hans has no separator and groups by four, so the
# server's numbers and the script's disagreed on one page.
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
