// streams: C++ file staging with DYAD's stream classes.
//
//   streams produce FILE N   write N numbered lines to FILE with ofstream_dyad; its close
//                            publishes FILE (under DYAD_PATH_PRODUCER)
//   streams consume FILE     read FILE with ifstream_dyad, whose open waits until FILE is
//                            produced and staged (under DYAD_PATH_CONSUMER); print the
//                            number of lines and the sum of their numbers
//
// Build: g++ -std=c++17 -Icapi/dyad/include streams.cpp -Lbin -lcouplet-dyad
#include <dyad/stream/dyad_stream_api.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
    if (argc < 3) {
        std::cerr << "usage: streams produce FILE N | consume FILE\n";
        return 2;
    }
    std::string mode = argv[1], path = argv[2];
    if (mode == "produce" && argc == 4) {
        long n = std::atol(argv[3]);
        dyad::ofstream_dyad out(path);
        for (long i = 1; i <= n; i++) out.get_stream() << "line " << i << "\n";
        out.close();
        if (!out.get_stream()) {
            std::cerr << "produce " << path << ": " << couplet_dyad_last_error() << "\n";
            return 1;
        }
        return 0;
    }
    if (mode == "consume") {
        dyad::ifstream_dyad in(path);
        if (!in.is_open()) {
            std::cerr << "consume " << path << ": rc " << in.last_rc() << ": " << couplet_dyad_last_error() << "\n";
            return 1;
        }
        std::string word;
        long k, lines = 0, sum = 0;
        while (in.get_stream() >> word >> k) lines++, sum += k;
        in.close();
        std::cout << lines << " lines, sum " << sum << "\n";
        return 0;
    }
    return 2;
}
