// Reads a numeric CSV (header label,f0,...; empty = missing) or a headerless
// TSV (label first) into column-major floats, for engine-only programs.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

struct DataFile {
  std::vector<float> labels;
  std::vector<std::vector<float>> cols;
  std::vector<std::string> names;
  size_t rows() const { return labels.size(); }
};

inline DataFile read_data_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  DataFile df;
  std::string line;
  bool tsv = path.size() > 4 && path.substr(path.size() - 4) == ".tsv";
  char sep = tsv ? '\t' : ',';
  bool header = !tsv;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> cells;
    size_t s = 0;
    for (;;) {
      size_t e = line.find(sep, s);
      cells.push_back(line.substr(s, e == std::string::npos ? std::string::npos : e - s));
      if (e == std::string::npos) break;
      s = e + 1;
    }
    if (header) {
      for (size_t i = 1; i < cells.size(); ++i) df.names.push_back(cells[i]);
      df.cols.resize(df.names.size());
      header = false;
      continue;
    }
    if (df.cols.empty()) {
      df.cols.resize(cells.size() - 1);
      for (size_t i = 1; i < cells.size(); ++i) df.names.push_back("f" + std::to_string(i - 1));
    }
    df.labels.push_back((float)std::strtod(cells[0].c_str(), nullptr));
    for (size_t i = 1; i < cells.size() && i - 1 < df.cols.size(); ++i)
      df.cols[i - 1].push_back(cells[i].empty() ? NAN : (float)std::strtod(cells[i].c_str(), nullptr));
  }
  return df;
}
