// The image datasets of deep metric learning in their official layouts (Omniglot, CUB-200-2011, Cars196, Stanford
// Online Products, In-shop Clothes, a class-per-folder tree), read as file paths with labels at every level the
// dataset has and its documented class-disjoint split. Torch-free; nothing is decoded here (see image.hpp).
#pragma once

#include "dmlbench/experiments/dataset_kind.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dmlbench::experiments {

// One split of a dataset: items (file paths) with labels at every level the dataset has.
struct ImageSet {
  std::string name;                                   // "train", "test", "query", "gallery", "all"
  std::vector<std::string> level_names;               // coarse to fine: {"alphabet","character"}, {"class"}, ...
  std::vector<std::vector<int>> labels;               // labels[level][item], dense ids 0..C_level-1
  std::vector<std::vector<std::string>> class_names;  // class_names[level][id]
  std::vector<std::string> paths;                     // absolute path per item
  std::size_t size() const { return paths.size(); }
  int level_index(const std::string& level) const;  // throws std::invalid_argument naming the valid levels
  int num_classes(const std::string& level) const { return int(class_names[std::size_t(level_index(level))].size()); }
};

struct DatasetSplits {
  std::string layout, root;  // root: absolute
  std::vector<ImageSet> splits;
  const ImageSet& split(const std::string& name) const;  // throws std::invalid_argument naming the splits there are
};

// Every reader: paths are absolute; every listed image must exist (a missing one is a data_error naming the list
// file, its line and the path); a list's malformed line is a data_error naming the file and the line number; an empty
// split is a data_error. A class with a single image is kept (the trainer decides what to do with it). Class ids are
// dense per split, in the order of the dataset's own ids (numeric ids numerically, names by byte order), with the
// dataset's names kept in class_names. The finest level's classes of a training split never occur in its test split.

// The layout names read_dataset accepts: omniglot, cub200, cars196, sop, inshop, folder.
std::vector<std::string> dataset_layouts();
// One of the readers below by layout name. Unknown layout: std::invalid_argument naming the valid ones and the nearest.
DatasetSplits read_dataset(const std::string& layout, const std::string& root);
// The same by its parsed name (dataset_kind.hpp); an idx dataset: std::invalid_argument.
DatasetSplits read_dataset(DatasetKind layout, const std::string& root);

// Omniglot (Lake et al. 2015): <root>/images_background/<alphabet>/<characterNN>/*.png is "train" (30 alphabets),
// <root>/images_evaluation/... is "test" (20 alphabets). Levels {"alphabet", "character"}; a character is the pair
// (alphabet, characterNN), named "<alphabet>/<characterNN>". Alphabets, characters and files in sorted byte order.
// Entries that are not folders at the alphabet and character levels, and non-.png files, are ignored; a character
// folder with no .png is a data_error.
DatasetSplits read_omniglot(const std::string& root);

// CUB-200-2011 (Wah et al. 2011): <root>/images.txt ("<image_id> <path under images/>"),
// <root>/image_class_labels.txt ("<image_id> <class_id 1..200>"), optional <root>/classes.txt ("<class_id> <name>",
// the class names; otherwise the id itself). Classes 1-100 are "train", 101-200 "test" (the split of Song et al.
// 2016 that deep metric learning uses). Level {"class"}. Items in the order of images.txt.
DatasetSplits read_cub200(const std::string& root);

// Cars196 (Krause et al. 2013): <root>/cars_annos.txt, made from the official cars_annos.mat by
// scripts/convert_cars_annos.py: '#' comment lines, then "<relative_im_path> <class 1..196>" (path relative to root).
// Optional <root>/cars_classes.txt ("<class> <name>", written by the same script). Classes 1-98 are "train", 99-196
// "test". Level {"class"}. Items in file order. Only cars_annos.mat present: a data_error saying to run the script.
DatasetSplits read_cars196(const std::string& root);

// Stanford Online Products (Song et al. 2016): <root>/Ebay_train.txt is "train", <root>/Ebay_test.txt is "test";
// each a header "image_id class_id super_class_id path" then one row per image, path relative to root. Levels
// {"superclass", "class"}; a super-class is named by its folder (the path's first component), a product by its
// class_id. A product listed with two super-classes, or in both files, is a data_error. Items in file order.
DatasetSplits read_sop(const std::string& root);

// In-shop Clothes Retrieval (Liu et al. 2016, DeepFashion): <root>/list_eval_partition.txt: line 1 the image count,
// line 2 the header "image_name item_id evaluation_status", then "<path> <item_id> train|query|gallery" with paths
// relative to root (img/<gender>/<category>/<item>/<file>). Splits "train", "query", "gallery". Levels {"category",
// "item"}; the category of an image is its path's 2nd and 3rd components ("WOMEN/Dresses"). Query and gallery share
// one id space at both levels (ids and class_names of their union; an id may have no image in one of the two); an
// item in train and in query/gallery is a data_error; so is a count on line 1 that is not the number of rows.
DatasetSplits read_inshop(const std::string& root);

// A generic class-per-folder tree: <root>/<class>/<image>, images by extension (.png, .jpg, .jpeg, any case), classes
// and files in sorted byte order. One split "all", level {"class"}. Other files, hidden entries ('.' first) and
// nested folders are ignored; a class folder with no image is a data_error. See split_by_class for a train/test split.
DatasetSplits read_image_folder(const std::string& root);

// A class-disjoint split of one set at `level`: the classes with ids 0..train_classes-1 (the first in the set's own
// class order, e.g. sorted folder names) and their items go to "train", the others to "test" (the deep metric
// learning convention, e.g. CUB's first 100 of 200). Items keep their order; every level's ids are made dense again
// on each side, class_names kept. Throws std::invalid_argument unless 0 < train_classes < the level's class count.
struct ClassSplit {
  ImageSet train, test;
};
ClassSplit split_by_class(const ImageSet& set, const std::string& level, int train_classes);
// The same with train_classes = round(train_fraction x classes), which must leave both sides at least one class.
ClassSplit split_by_class_fraction(const ImageSet& set, const std::string& level, double train_fraction);

// The items `items` (indices into set, in that order) as a set named `name`. Ids and class_names are kept as they are
// (the same id space as `set`); densify() renumbers them. Throws std::invalid_argument for an index out of range.
ImageSet select_items(const ImageSet& set, const std::vector<std::size_t>& items, const std::string& name);
// Renumbers each level's ids to 0..C-1 over the classes present, in their old order; drops the absent class_names.
void densify(ImageSet& set);

}  // namespace dmlbench::experiments
