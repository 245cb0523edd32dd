"""`mlgov report`: one self-contained HTML page of where the money goes.

For people who would rather look than read. model.py folds plans and billing export rows into
what is drawn (pure); spend_view.py reads a stack's export through `spend`'s runner and report;
charts.py makes the plotly figures (the only plotly import); page.py writes the page with
plotly.js inlined; governance/cli/report.py is the command.
"""
