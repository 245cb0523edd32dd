"""The organization-scale measurement and simulation of issue 29 ("Measure").

- apis.py: which Google API method a recorded request is (from Google's discovery documents),
  whether it reads, writes or polls an operation, and which quota it counts against (with the
  source of each number);
- profile.py: the call-profile format bench/org_profile.py writes (per project kind: the calls
  by method, and the dependency graph of one project's calls) and its reader;
- latency.py, operations.py: the per-call latency distribution and how long the operations
  behind a stop take (each with its basis);
- quotas.py: token buckets and sliding windows on simulated time;
- model.py: the discrete-event model (simpy) of dispatcher, Pub/Sub push, worker instances and
  the cloud's quotas, driven by a profile.

bench/org_sim.py runs the scenarios; results in bench/RESULTS.md. Nothing here imports the
functions: the simulation reads only what the profile measured.
"""
