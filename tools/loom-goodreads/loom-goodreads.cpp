// loom-goodreads: the data of the seed's Goodreads recommender.
//
//   loom-goodreads generate DIR [--users N] [--books N] [--seed S]
//       writes synthetic goodreads_interactions.csv, user_id_map.csv, book_id_map.csv and
//       goodreads_books.json.gz in the real files' formats (the real data cannot be
//       downloaded here; with it, skip this step)
//   loom-goodreads prepare DIR OUT [--parts N] [--seed S]
//       preprocesses them into OUT/train/part-*.lcol (shuffled), OUT/eval/part-*.lcol and
//       OUT/sizes.json
#include "frontend/Error.h"
#include "frontend/recsys/GoodreadsGenerator.h"
#include "frontend/recsys/GoodreadsPrepare.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int usage(const char *why) {
  std::fprintf(stderr,
               "loom-goodreads: %s\n"
               "usage: loom-goodreads generate DIR [--users N] [--books N] [--seed S]\n"
               "       loom-goodreads prepare DIR OUT [--parts N] [--seed S]\n",
               why);
  return 2;
}

/// The value of option `name` at args[i + 1], as a positive number.
bool option(const std::vector<std::string> &args, size_t &i, const char *name, int64_t &out) {
  if (args[i] != name)
    return false;
  if (i + 1 >= args.size())
    throw loom::Error(std::string(name) + " needs a value");
  char *end = nullptr;
  out = std::strtoll(args[i + 1].c_str(), &end, 10);
  if (*end || out < 0)
    throw loom::Error(std::string(name) + ": '" + args[i + 1] + "' is not a number");
  ++i;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty())
    return usage("no command given");
  if (args[0] == "-h" || args[0] == "--help") {
    std::printf("usage: loom-goodreads generate DIR [--users N] [--books N] [--seed S]\n"
                "       loom-goodreads prepare DIR OUT [--parts N] [--seed S]\n");
    return 0;
  }
  try {
    std::vector<std::string> positional;
    int64_t users = 2000, books = 3000, seed = 0, parts = 4;
    for (size_t i = 1; i < args.size(); ++i)
      if (!option(args, i, "--users", users) && !option(args, i, "--books", books) &&
          !option(args, i, "--seed", seed) && !option(args, i, "--parts", parts)) {
        if (args[i].rfind("--", 0) == 0)
          return usage(("unknown option " + args[i]).c_str());
        positional.push_back(args[i]);
      }
    if (args[0] == "generate" && positional.size() == 1) {
      loom::recsys::generateGoodreads(positional[0], {users, books, uint64_t(seed)});
      std::printf("wrote the Goodreads files for %lld users and %lld books into %s\n",
                  (long long)users, (long long)books, positional[0].c_str());
      return 0;
    }
    if (args[0] == "prepare" && positional.size() == 2) {
      loom::recsys::PrepareOptions options;
      options.parts = static_cast<int>(parts), options.seed = uint64_t(seed);
      auto s = loom::recsys::prepareGoodreads(positional[0], positional[1], options);
      std::printf("kept %lld users (dropped %lld outside %lld-%lld interactions), %lld books; "
                  "%lld train and %lld eval examples in %d parts each under %s\n",
                  (long long)s.users, (long long)s.droppedUsers,
                  (long long)options.minInteractions, (long long)options.maxInteractions,
                  (long long)s.items, (long long)s.trainRows, (long long)s.evalRows,
                  options.parts, positional[1].c_str());
      return 0;
    }
    return usage(("bad command line for '" + args[0] + "'").c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "loom-goodreads: %s\n", e.what());
    return 1;
  }
}
