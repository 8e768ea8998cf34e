// The factory's ImageRecordIter (weft/image_record_iter.h): MXNet's
// parameters (ImageRecParserParam, ImageRecordParam, ImageNormalizeParam,
// DefaultImageAugmentParam, BatchParam) with its defaults.
#include <cstdlib>
#include <string>
#include <vector>

#include "op/op_common.h"
#include "train/data_iter_entry.h"
#include "weft/image_record_iter.h"

namespace weft {

namespace {

using op::BoolParam;
using op::FloatParam;
using op::IntParam;
using op::RequiredParam;
using op::StringParam;

std::vector<ParamDecl> RecordParams() {
  return {RequiredParam("path_imgrec", ParamType::kString, "The .rec file."),
          StringParam("path_imgidx", "", "Its .idx file (needed for shuffle)."),
          RequiredParam("data_shape", ParamType::kShape, "(channels, height, width)."),
          RequiredParam("batch_size", ParamType::kInt, "Images per batch."),
          IntParam("label_width", "1", "Labels per image."),
          BoolParam("shuffle", "False", "Shuffle the records every epoch."),
          IntParam("seed", "0", "Seed of the shuffle and the augmentations."),
          BoolParam("round_batch", "True", "Complete the last batch from the next epoch."),
          IntParam("num_parts", "1", "Parts the records are split into."),
          IntParam("part_index", "0", "The part this iterator reads."),
          IntParam("preprocess_threads", "4", "Decoding and augmenting threads."),
          IntParam("prefetch_buffer", "4", "Batches prepared ahead."),
          op::DTypeParam("dtype", "float32", "Output dtype: float32 or uint8."),
          BoolParam("mirror", "False", "Mirror every image."),
          BoolParam("rand_mirror", "False", "Mirror at random."),
          FloatParam("mean_r", "0", "Mean of R."),
          FloatParam("mean_g", "0", "Mean of G."),
          FloatParam("mean_b", "0", "Mean of B."),
          FloatParam("std_r", "1", "Standard deviation of R."),
          FloatParam("std_g", "1", "Standard deviation of G."),
          FloatParam("std_b", "1", "Standard deviation of B."),
          FloatParam("scale", "1", "Multiplies the normalised pixels."),
          FloatParam("max_random_contrast", "0", "Random contrast change, relative."),
          FloatParam("max_random_illumination", "0", "Random illumination change.")};
}

std::vector<ParamDecl> AugParams() {
  return {IntParam("resize", "-1", "Shorter side resized to this first (-1: no)."),
          BoolParam("rand_crop", "False", "Crop at a random position."),
          BoolParam("random_resized_crop", "False", "Inception-style random resized crop."),
          FloatParam("max_aspect_ratio", "0", "Aspect ratio change."),
          FloatParam("min_aspect_ratio", "-1", "Smallest aspect ratio (-1: 1 - max)."),
          FloatParam("min_random_area", "1", "Smallest area share of a random crop."),
          FloatParam("max_random_area", "1", "Largest area share of a random crop."),
          IntParam("max_crop_size", "-1", "Largest crop size (-1: data_shape)."),
          IntParam("min_crop_size", "-1", "Smallest crop size (-1: data_shape)."),
          FloatParam("brightness", "0", "Brightness jitter."),
          FloatParam("contrast", "0", "Contrast jitter."),
          FloatParam("saturation", "0", "Saturation jitter."),
          FloatParam("pca_noise", "0", "PCA (AlexNet) lighting noise."),
          IntParam("inter_method", "1",
                   "Interpolation: 0 nearest, 1 bilinear, 2 cubic, 3 area, 4 Lanczos-4, 9 auto "
                   "(cubic to enlarge, area to shrink, else bilinear), 10 one of 0-4 at random."),
          IntParam("pad", "0", "Border added on every side."),
          IntParam("fill_value", "255", "The border's value."),
          IntParam("max_rotate_angle", "0", "Rotate by a random angle in [-v, v] degrees."),
          IntParam("rotate", "-1", "Rotate by this angle (> 0; overrides max_rotate_angle)."),
          StringParam("rotate_list", "", "Angles, comma separated; one drawn per image."),
          FloatParam("max_shear_ratio", "0", "Shear (x, y) -> (x + m y, y), m in [-v, v]."),
          FloatParam("min_random_scale", "1", "Smallest random scale of the image."),
          FloatParam("max_random_scale", "1", "Largest random scale of the image."),
          FloatParam("min_img_size", "0", "Smallest side after the scale and rotation."),
          FloatParam("max_img_size", "1e10", "Largest side after the scale and rotation."),
          IntParam("random_h", "0", "HSL hue jitter in [-v, v] (H in [0, 180])."),
          IntParam("random_s", "0", "HSL saturation jitter in [-v, v]."),
          IntParam("random_l", "0", "HSL lightness jitter in [-v, v].")};
}

// MXNet's rotate_list: integers separated by commas ("" : none).
std::vector<int> RotateList(const std::string& text) {
  std::vector<int> angles;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    char* stop = nullptr;
    const long v = std::strtol(item.c_str(), &stop, 10);
    if (item.empty() || *stop != '\0' || v < -360 || v > 360)
      Fail(StatusCode::kInvalidArgument, "ImageRecordIter: rotate_list must be integers in ",
           "[-360, 360] separated by commas, given '", text, "'");
    angles.push_back(static_cast<int>(v));
    at = end + 1;
  }
  return angles;
}

ImageAugParams Aug(const ParamValues& p) {
  ImageAugParams a;
  a.resize = static_cast<int>(p.GetInt("resize"));
  a.rand_crop = p.GetBool("rand_crop");
  a.random_resized_crop = p.GetBool("random_resized_crop");
  a.max_aspect_ratio = static_cast<float>(p.GetFloat("max_aspect_ratio"));
  a.min_aspect_ratio = static_cast<float>(p.GetFloat("min_aspect_ratio"));
  a.min_random_area = static_cast<float>(p.GetFloat("min_random_area"));
  a.max_random_area = static_cast<float>(p.GetFloat("max_random_area"));
  a.max_crop_size = static_cast<int>(p.GetInt("max_crop_size"));
  a.min_crop_size = static_cast<int>(p.GetInt("min_crop_size"));
  a.brightness = static_cast<float>(p.GetFloat("brightness"));
  a.contrast = static_cast<float>(p.GetFloat("contrast"));
  a.saturation = static_cast<float>(p.GetFloat("saturation"));
  a.pca_noise = static_cast<float>(p.GetFloat("pca_noise"));
  a.inter_method = static_cast<int>(p.GetInt("inter_method"));
  a.pad = static_cast<int>(p.GetInt("pad"));
  a.fill_value = static_cast<int>(p.GetInt("fill_value"));
  a.max_rotate_angle = static_cast<int>(p.GetInt("max_rotate_angle"));
  a.rotate = static_cast<int>(p.GetInt("rotate"));
  a.rotate_list = RotateList(p.GetString("rotate_list"));
  a.max_shear_ratio = static_cast<float>(p.GetFloat("max_shear_ratio"));
  a.min_img_size = static_cast<float>(p.GetFloat("min_img_size"));
  a.max_img_size = static_cast<float>(p.GetFloat("max_img_size"));
  a.min_random_scale = static_cast<float>(p.GetFloat("min_random_scale"));
  a.max_random_scale = static_cast<float>(p.GetFloat("max_random_scale"));
  a.random_h = static_cast<int>(p.GetInt("random_h"));
  a.random_s = static_cast<int>(p.GetInt("random_s"));
  a.random_l = static_cast<int>(p.GetInt("random_l"));
  return a;
}

std::unique_ptr<DataIter> Build(const ParamValues& p, Runtime* rt) {
  ImageRecordIterParams r;
  r.path_imgrec = p.GetString("path_imgrec");
  r.path_imgidx = p.GetString("path_imgidx");
  r.data_shape = p.GetShape("data_shape");
  r.batch_size = static_cast<int>(p.GetInt("batch_size"));
  r.label_width = static_cast<int>(p.GetInt("label_width"));
  r.shuffle = p.GetBool("shuffle");
  r.seed = static_cast<int>(p.GetInt("seed"));
  r.round_batch = p.GetBool("round_batch");
  r.num_parts = static_cast<int>(p.GetInt("num_parts"));
  r.part_index = static_cast<int>(p.GetInt("part_index"));
  r.preprocess_threads = static_cast<int>(p.GetInt("preprocess_threads"));
  r.prefetch_buffer = static_cast<int>(p.GetInt("prefetch_buffer"));
  r.dtype = p.GetDType("dtype");
  r.mirror = p.GetBool("mirror");
  r.rand_mirror = p.GetBool("rand_mirror");
  float* fields[] = {&r.mean_r,
                     &r.mean_g,
                     &r.mean_b,
                     &r.std_r,
                     &r.std_g,
                     &r.std_b,
                     &r.scale,
                     &r.max_random_contrast,
                     &r.max_random_illumination};
  const char* names[] = {"mean_r",
                         "mean_g",
                         "mean_b",
                         "std_r",
                         "std_g",
                         "std_b",
                         "scale",
                         "max_random_contrast",
                         "max_random_illumination"};
  for (size_t i = 0; i < 9; ++i) *fields[i] = static_cast<float>(p.GetFloat(names[i]));
  r.aug = Aug(p);
  return std::make_unique<ImageRecordIter>(r, rt);
}

}  // namespace

DataIterEntry ImageRecordIterEntry() {
  DataIterEntry e;
  e.info.name = "ImageRecordIter";
  e.info.doc =
      "Batches of images decoded and augmented on worker threads from a RecordIO file "
      "that im2rec wrote, MXNet's ImageRecordIter.";
  e.info.params = RecordParams();
  for (auto& d : AugParams()) e.info.params.push_back(d);
  for (auto& d : IgnoredIterParams()) e.info.params.push_back(d);
  e.build = Build;
  return e;
}

}  // namespace weft
