// Runs lpaggreg's temporal (ordered, OLP) aggregation on a microscopic model written by
// `traza aggregate --micro-out FILE`, through lpaggreg's public API (OValuesN2,
// OQualities, OPartitioner). Built and run by bench/aggregate.sh when LPAGGREG_SRC is set.
// usage: lpaggreg_driver FILE STEP...  with the steps run in order:
//   --p P        print the best partition at P
//   --normalize  divide the qualities by those of the whole interval
//                (OQualities::normalize, lpaggreg's usual pipeline); before it they are
//                the raw sums of gain and loss
//   --plist      the p list by bisection (threshold 0.001), then print the partition at
//                lpaggreg's optimal p (getP(P_OPT))
// Prints per partition "p P [(P_OPT of N)] parts N: first-last ..." (slice indices), then
// the seconds spent reading the file and computing.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "opartitioner.h"
#include "oqualities.h"
#include "ovaluesn.h"

using namespace lpaggreg;

static double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::cerr << "usage: lpaggreg_driver FILE (--p P | --normalize | --plist)...\n";
        return 2;
    }
    const char *path = argv[1];
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--plist") && strcmp(argv[i], "--normalize") && (strcmp(argv[i], "--p") || ++i == argc)) {
            std::cerr << "lpaggreg_driver: bad argument " << argv[i - (i == argc)] << "\n";
            return 2;
        }
    auto t0 = std::chrono::steady_clock::now();
    std::ifstream in(path);
    std::string w1, w2;
    size_t nslices = 0, nseries = 0;
    if (!(in >> w1 >> nslices >> w2 >> nseries) || w1 != "slices" || w2 != "series" || !nslices || !nseries) {
        std::cerr << path << ": expected \"slices N series S\" on line 1\n";
        return 1;
    }
    std::vector<std::vector<double> > v(nseries, std::vector<double>(nslices));
    for (size_t s = 0; s < nseries; s++) {
        long producer, type;
        if (!(in >> producer >> type)) {
            std::cerr << path << ": series " << s << ": expected producer and type ids\n";
            return 1;
        }
        for (size_t k = 0; k < nslices; k++)
            if (!(in >> v[s][k])) {
                std::cerr << path << ": series " << s << ", slice " << k << ": expected a number\n";
                return 1;
            }
    }
    double tread = since(t0);
    t0 = std::chrono::steady_clock::now();
    std::shared_ptr<OValuesN2> values(new OValuesN2(v));
    OQualities q(values);
    q.computeQualities();
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--normalize")) {
            q.normalize();
            continue;
        }
        OPartitioner part(q);
        float p;
        size_t nplist = 0;
        if (!strcmp(argv[i], "--plist")) {
            part.computeBestPartitions(0.001f);
            nplist = part.getPList().size();
            p = part.getP(P_OPT);
        } else {
            p = strtof(argv[++i], nullptr);
        }
        std::vector<OPart> parts = part.computeBestPartition(p)->getParts();
        printf("p %.9g", p);
        if (nplist)
            printf(" (P_OPT of %zu)", nplist);
        printf(" parts %zu:", parts.size());
        for (const OPart &o : parts)
            printf(" %d-%d", o.getStart(), o.getEnd());
        printf("\n");
    }
    printf("read %.3f s, compute %.3f s\n", tread, since(t0));
    return 0;
}
