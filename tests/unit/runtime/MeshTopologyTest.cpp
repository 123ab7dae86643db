// Tests of MeshTopology: coordinates, groups and ranks of collectives over
// subsets of mesh axes, and the errors for bad meshes and axes.
#include "runtime/MeshTopology.h"

#include <algorithm>

#include <gtest/gtest.h>

using namespace loom::rt;

namespace {

MeshTopology mesh2x4() {
  auto mesh = MeshTopology::create({{"data", 2}, {"model", 4}});
  EXPECT_TRUE(mesh.ok()) << mesh.status().toString();
  return *mesh;
}

} // namespace

TEST(MeshTopology, CoordinatesAreRowMajor) {
  MeshTopology mesh = mesh2x4();
  EXPECT_EQ(mesh.numDevices(), 8);
  EXPECT_EQ(mesh.toString(), R"({"data": 2, "model": 4})");
  EXPECT_EQ(*mesh.coordinates(7), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(*mesh.coordinates(2), (std::vector<int64_t>{0, 2}));
  for (int d = 0; d < 8; ++d)
    EXPECT_EQ(*mesh.deviceAt(*mesh.coordinates(d)), d);
  EXPECT_EQ(mesh.coordinates(8).status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(mesh.deviceAt({2, 0}).status().code(),
            StatusCode::InvalidArgument);
}

TEST(MeshTopology, GroupsShareTheOtherCoordinates) {
  MeshTopology mesh = mesh2x4();
  // Device 6 is (1, 2).
  EXPECT_EQ(*mesh.group(6, {"data"}), (DeviceGroup{{2, 6}, 1}));
  EXPECT_EQ(*mesh.group(6, {"model"}), (DeviceGroup{{4, 5, 6, 7}, 2}));
  // As loom.axis_index: (1, 2) has index 6 along ["data", "model"] ...
  EXPECT_EQ(*mesh.group(6, {"data", "model"}),
            (DeviceGroup{{0, 1, 2, 3, 4, 5, 6, 7}, 6}));
  // ... and the first listed axis is the major one.
  EXPECT_EQ(*mesh.group(6, {"model", "data"}),
            (DeviceGroup{{0, 4, 1, 5, 2, 6, 3, 7}, 5}));
  EXPECT_EQ(*mesh.group(6, {}), (DeviceGroup{{6}, 0}));
}

TEST(MeshTopology, Errors) {
  MeshTopology mesh = mesh2x4();
  Status unknown = mesh.group(0, {"pipe"}).status();
  EXPECT_EQ(unknown.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(unknown.message(),
            R"(mesh {"data": 2, "model": 4} has no axis "pipe")");
  Status repeated = mesh.group(0, {"data", "data"}).status();
  EXPECT_EQ(repeated.message(),
            R"(axis "data" is repeated in a group of mesh {"data": 2, "model": 4})");
  EXPECT_EQ(mesh.group(-1, {"data"}).status().code(),
            StatusCode::InvalidArgument);

  EXPECT_EQ(MeshTopology::create({}).status().message(),
            "mesh: at least one axis is needed");
  EXPECT_EQ(MeshTopology::create({{"a", 2}, {"a", 2}}).status().message(),
            R"(mesh: axis "a" is repeated)");
  EXPECT_EQ(MeshTopology::create({{"a", 0}}).status().message(),
            R"(mesh: axis "a" has size 0, expected at least 1)");
  EXPECT_EQ(MeshTopology::create({{"", 2}}).status().message(),
            "mesh: an axis name is empty");
}

TEST(MeshTopology, GroupSetsListEachSetOfEveryAxisSubsetOnce) {
  MeshTopology mesh = mesh2x4();
  std::vector<std::vector<int>> sets = mesh.groupSets();
  // "data" (4 pairs), then "model" (2 rows), then both (all 8) once.
  std::vector<std::vector<int>> expected = {{0, 4}, {1, 5}, {2, 6}, {3, 7},
                                            {0, 1, 2, 3}, {4, 5, 6, 7},
                                            {0, 1, 2, 3, 4, 5, 6, 7}};
  EXPECT_EQ(sets, expected);
  // Each collective's group, over any axes in any order, is one of the sets.
  for (int d = 0; d < mesh.numDevices(); ++d)
    for (std::vector<std::string> axes : std::vector<std::vector<std::string>>{
             {"data"}, {"model"}, {"data", "model"}, {"model", "data"}}) {
      std::vector<int> devices = mesh.group(d, axes)->devices;
      std::sort(devices.begin(), devices.end());
      EXPECT_NE(std::find(sets.begin(), sets.end(), devices), sets.end());
    }
}
