# The web-search flow-size distribution (DCTCP, SIGCOMM 2010) as HPCC (SIGCOMM 2019) simulates
# it: the points of traffic_gen/WebSearch_distribution.txt in HPCC's public simulator, sizes in
# bytes, probabilities divided by 100. HPCC's file starts at "0 0"; a flow carries at least one
# byte here, so the first point is 1 byte (the mass below 10 KB is unchanged). Sizes in between
# are interpolated linearly, as HPCC's traffic generator does. Mean: 1.71 MB.
1         0.00
10000     0.15
20000     0.20
30000     0.30
50000     0.40
80000     0.53
200000    0.60
1000000   0.70
2000000   0.80
5000000   0.90
10000000  0.97
30000000  1.00
