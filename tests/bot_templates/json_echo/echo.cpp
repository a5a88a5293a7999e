// The C++ template's JSON reader, line by line: each line read back as JSON by dump(), or
// "error: ..." (tests/bot_templates/test_json_readers.py).
#include <iostream>
#include <string>

#include "json.hpp"

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        try {
            std::cout << Json::parse(line).dump() << '\n';
        } catch (const JsonError &error) {
            std::cout << "error: " << error.what() << '\n';
        }
    }
    return 0;
}
