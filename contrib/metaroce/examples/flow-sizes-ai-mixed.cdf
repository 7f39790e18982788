# A synthetic message-size mix for the flows workload (not a measured trace): small control and
# synchronisation messages, mid-sized activations, large gradient buckets. One
# "bytes cumulative-probability" pair per line; sizes in between are interpolated linearly.
64        0.00
4096      0.30
65536     0.50
262144    0.70
1048576   0.90
4194304   1.00
