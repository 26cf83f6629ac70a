// The memory budget a declared size is checked against before anything is allocated: an idx header
// promising 10^12 pixels, a safetensors shape, the [LCC] objective's n x n matrices. One clear error naming the size
// and the limit, never std::bad_alloc.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace dmlbench::theory {

// DMLBENCH_MEMORY_LIMIT (bytes, or with a K, M, G or T suffix of powers of 1024) when set, else the machine's
// physical memory. A malformed value throws domain_error naming it.
std::uint64_t memory_limit_bytes();

// Throws domain_error "<what> needs <bytes> (<GiB>), above the memory limit of <limit> (<source>)" when bytes is
// above memory_limit_bytes(). bytes is a double so that a caller's size product cannot wrap before it is checked.
void require_memory(double bytes, const std::string& what);

// The product of sizes, or the first size that makes it exceed 2^64 - 1 named in a domain_error.
std::uint64_t checked_product(std::initializer_list<std::uint64_t> sizes, const std::string& what);

// "1.5 GiB", "12 MiB", "512 bytes": the size as a reader of an error wants it.
std::string byte_size_text(double bytes);

}  // namespace dmlbench::theory
