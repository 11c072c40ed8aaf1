// Reads a numeric CSV (header label,f0,...; empty = missing) or a headerless
// TSV (label first) into column-major floats, for engine-only programs.
#pragma once
#include <algorithm>
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

// A float32 C-order .npy matrix [label, f0, ..., f{d-1}] (n x (d+1)), as
// written by test/bench/bench.py: the very matrix the Python peers train on.
inline DataFile read_npy_file(const std::string& path) {
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) throw std::runtime_error("cannot open " + path);
  char magic[8];
  if (std::fread(magic, 1, 8, fp) != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw std::runtime_error(path + ": not a .npy file");
  size_t hlen = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    if (std::fread(b, 1, 2, fp) != 2) throw std::runtime_error(path + ": truncated");
    hlen = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    if (std::fread(b, 1, 4, fp) != 4) throw std::runtime_error(path + ": truncated");
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | ((size_t)b[3] << 24);
  }
  std::string h(hlen, ' ');
  if (std::fread(&h[0], 1, hlen, fp) != hlen) throw std::runtime_error(path + ": truncated");
  if (h.find("'<f4'") == std::string::npos || h.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error(path + ": need a C-order float32 matrix");
  size_t sp = h.find("'shape': (");
  if (sp == std::string::npos) throw std::runtime_error(path + ": no shape");
  size_t rows = 0, cols = 0;
  if (std::sscanf(h.c_str() + sp + 10, "%zu, %zu", &rows, &cols) != 2 || cols < 2)
    throw std::runtime_error(path + ": need a 2-d matrix with a label column");
  DataFile df;
  const size_t d = cols - 1;
  df.labels.resize(rows);
  df.cols.assign(d, std::vector<float>(rows));
  for (size_t f = 0; f < d; ++f) df.names.push_back("f" + std::to_string(f));
  std::vector<float> buf(cols * 4096);
  for (size_t r0 = 0; r0 < rows; r0 += 4096) {
    size_t m = std::min<size_t>(4096, rows - r0);
    if (std::fread(buf.data(), sizeof(float), m * cols, fp) != m * cols)
      throw std::runtime_error(path + ": truncated data");
    for (size_t i = 0; i < m; ++i) {
      df.labels[r0 + i] = buf[i * cols];
      for (size_t f = 0; f < d; ++f) df.cols[f][r0 + i] = buf[i * cols + 1 + f];
    }
  }
  std::fclose(fp);
  return df;
}

inline DataFile read_data_file(const std::string& path) {
  if (path.size() > 4 && path.substr(path.size() - 4) == ".npy") return read_npy_file(path);
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
