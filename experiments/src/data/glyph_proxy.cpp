// The glyph proxy (see glyph_proxy.hpp): the script table, FreeType rendering, the drawers' random
// variation and the atomic writing of the Omniglot layout.
#include "dmlbench/experiments/glyph_proxy.hpp"

#include "dmlbench/experiments/atomic_file.hpp"
#include "dmlbench/experiments/idx_file.hpp"  // data_error
#include "dmlbench/experiments/image_transforms.hpp"  // uniform01
#include "dmlbench/experiments/nearest_name.hpp"

#include <ft2build.h>
#include FT_FREETYPE_H

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

namespace dmlbench::experiments {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// A row of the table: as GlyphScript, with literals (constant-initialised, so no order of initialisation to mind).
struct GlyphScriptRow {
  const char* name;
  bool background;
  std::initializer_list<const char*> fonts;
  std::initializer_list<char32_t> letters;
};

// Made by a throw-away script from fc-query's charsets: for each script a range of its letters (Unicode categories
// Lo, Lu, Ll; for Ethiopic the first syllable of each consonant, for Coptic the capitals, for Vai every 9th syllable,
// for Canadian syllabics the i/u/a series of 9 consonants), kept where every font has the code point, and at most 30
// spread evenly over the range. Split: true = images_background (train), false = images_evaluation (test).
// clang-format off
constexpr GlyphScriptRow kGlyphScriptTable[] = {
    {"Armenian", true, {"NotoSansArmenian-Regular.ttf", "NotoSansArmenian-Bold.ttf",
     "NotoSerifArmenian-Regular.ttf", "NotoSerifArmenian-Bold.ttf"},
     {0x0531, 0x0532, 0x0533, 0x0534, 0x0536, 0x0537, 0x0538, 0x0539, 0x053B, 0x053C, 0x053D, 0x053E, 0x0540,
      0x0541, 0x0542, 0x0544, 0x0545, 0x0546, 0x0547, 0x0549, 0x054A, 0x054B, 0x054C, 0x054E, 0x054F, 0x0550,
      0x0551, 0x0553, 0x0554, 0x0555}},
    {"Georgian", false, {"NotoSansGeorgian-Regular.ttf", "NotoSansGeorgian-Bold.ttf",
     "NotoSerifGeorgian-Regular.ttf", "NotoSerifGeorgian-Bold.ttf"},
     {0x10D0, 0x10D1, 0x10D2, 0x10D3, 0x10D4, 0x10D5, 0x10D6, 0x10D7, 0x10D8, 0x10D9, 0x10DB, 0x10DC, 0x10DD,
      0x10DE, 0x10DF, 0x10E0, 0x10E1, 0x10E2, 0x10E3, 0x10E4, 0x10E6, 0x10E7, 0x10E8, 0x10E9, 0x10EA, 0x10EB,
      0x10EC, 0x10ED, 0x10EE, 0x10EF}},
    {"Greek", true, {"NotoSans-Regular.ttf", "NotoSans-Bold.ttf", "NotoSerif-Regular.ttf", "NotoSerif-Bold.ttf"},
     {0x0391, 0x0392, 0x0393, 0x0394, 0x0395, 0x0396, 0x0397, 0x0398, 0x0399, 0x039A, 0x039B, 0x039C, 0x039D,
      0x039E, 0x039F, 0x03A0, 0x03A1, 0x03A3, 0x03A4, 0x03A5, 0x03A6, 0x03A7, 0x03A8, 0x03A9}},
    {"Cyrillic", true, {"NotoSans-Regular.ttf", "NotoSans-Bold.ttf", "NotoSerif-Regular.ttf", "NotoSerif-Bold.ttf"},
     {0x0410, 0x0411, 0x0412, 0x0413, 0x0414, 0x0415, 0x0416, 0x0417, 0x0418, 0x0419, 0x041A, 0x041B, 0x041C,
      0x041D, 0x041E, 0x0420, 0x0421, 0x0422, 0x0423, 0x0424, 0x0425, 0x0426, 0x0427, 0x0428, 0x0429, 0x042A,
      0x042B, 0x042C, 0x042D, 0x042E}},
    {"Hebrew", false, {"NotoSansHebrew-Regular.ttf", "NotoSansHebrew-Bold.ttf", "NotoSerifHebrew-Regular.ttf",
     "NotoSerifHebrew-Bold.ttf", "NotoRashiHebrew-Regular.ttf", "NotoRashiHebrew-Bold.ttf"},
     {0x05D0, 0x05D1, 0x05D2, 0x05D3, 0x05D4, 0x05D5, 0x05D6, 0x05D7, 0x05D8, 0x05D9, 0x05DA, 0x05DB, 0x05DC,
      0x05DD, 0x05DE, 0x05DF, 0x05E0, 0x05E1, 0x05E2, 0x05E3, 0x05E4, 0x05E5, 0x05E6, 0x05E7, 0x05E8, 0x05E9,
      0x05EA}},
    {"Arabic", true, {"NotoNaskhArabic-Regular.ttf", "NotoNaskhArabic-Bold.ttf", "NotoSansArabic-Regular.ttf",
     "NotoSansArabic-Bold.ttf", "NotoKufiArabic-Regular.ttf", "NotoKufiArabic-Bold.ttf"},
     {0x0627, 0x0628, 0x0629, 0x062A, 0x062B, 0x062C, 0x062D, 0x062E, 0x062F, 0x0630, 0x0631, 0x0632, 0x0633,
      0x0634, 0x0635, 0x0636, 0x0637, 0x0638, 0x0639, 0x063A, 0x0641, 0x0642, 0x0643, 0x0644, 0x0645, 0x0646,
      0x0647, 0x0648, 0x0649, 0x064A}},
    {"Devanagari", true, {"NotoSansDevanagari-Regular.ttf", "NotoSansDevanagari-Bold.ttf",
     "NotoSerifDevanagari-Regular.ttf", "NotoSerifDevanagari-Bold.ttf"},
     {0x0915, 0x0916, 0x0917, 0x0918, 0x0919, 0x091B, 0x091C, 0x091D, 0x091E, 0x0920, 0x0921, 0x0922, 0x0923,
      0x0925, 0x0926, 0x0927, 0x0928, 0x0929, 0x092B, 0x092C, 0x092D, 0x092E, 0x0930, 0x0931, 0x0932, 0x0933,
      0x0935, 0x0936, 0x0937, 0x0938}},
    {"Bengali", true, {"NotoSansBengali-Regular.ttf", "NotoSansBengali-Bold.ttf", "NotoSerifBengali-Regular.ttf",
     "NotoSerifBengali-Bold.ttf"},
     {0x0995, 0x0996, 0x0997, 0x0998, 0x0999, 0x099A, 0x099B, 0x099C, 0x099D, 0x099E, 0x099F, 0x09A0, 0x09A1,
      0x09A2, 0x09A3, 0x09A5, 0x09A6, 0x09A7, 0x09A8, 0x09AA, 0x09AB, 0x09AC, 0x09AD, 0x09AE, 0x09AF, 0x09B0,
      0x09B2, 0x09B6, 0x09B7, 0x09B8}},
    {"Gujarati", false, {"NotoSansGujarati-Regular.ttf", "NotoSansGujarati-Bold.ttf",
     "NotoSerifGujarati-Regular.ttf", "NotoSerifGujarati-Bold.ttf"},
     {0x0A95, 0x0A96, 0x0A97, 0x0A98, 0x0A99, 0x0A9A, 0x0A9B, 0x0A9C, 0x0A9E, 0x0A9F, 0x0AA0, 0x0AA1, 0x0AA2,
      0x0AA3, 0x0AA4, 0x0AA6, 0x0AA7, 0x0AA8, 0x0AAA, 0x0AAB, 0x0AAC, 0x0AAD, 0x0AAE, 0x0AB0, 0x0AB2, 0x0AB3,
      0x0AB5, 0x0AB6, 0x0AB7, 0x0AB8}},
    {"Gurmukhi", true, {"NotoSansGurmukhi-Regular.ttf", "NotoSansGurmukhi-Bold.ttf",
     "NotoSerifGurmukhi-Regular.ttf", "NotoSerifGurmukhi-Bold.ttf"},
     {0x0A15, 0x0A16, 0x0A17, 0x0A18, 0x0A19, 0x0A1A, 0x0A1B, 0x0A1C, 0x0A1D, 0x0A1E, 0x0A20, 0x0A21, 0x0A22,
      0x0A23, 0x0A24, 0x0A25, 0x0A26, 0x0A27, 0x0A28, 0x0A2A, 0x0A2C, 0x0A2D, 0x0A2E, 0x0A2F, 0x0A30, 0x0A32,
      0x0A33, 0x0A35, 0x0A36, 0x0A38}},
    {"Oriya", true, {"NotoSansOriya-Regular.ttf", "NotoSansOriya-Bold.ttf"},
     {0x0B15, 0x0B16, 0x0B17, 0x0B18, 0x0B19, 0x0B1A, 0x0B1B, 0x0B1C, 0x0B1E, 0x0B1F, 0x0B20, 0x0B21, 0x0B22,
      0x0B23, 0x0B24, 0x0B26, 0x0B27, 0x0B28, 0x0B2A, 0x0B2B, 0x0B2C, 0x0B2D, 0x0B2E, 0x0B30, 0x0B32, 0x0B33,
      0x0B35, 0x0B36, 0x0B37, 0x0B38}},
    {"Tamil", true, {"NotoSansTamil-Regular.ttf", "NotoSansTamil-Bold.ttf", "NotoSerifTamil-Regular.ttf",
     "NotoSerifTamil-Bold.ttf"},
     {0x0B85, 0x0B86, 0x0B87, 0x0B88, 0x0B89, 0x0B8A, 0x0B8F, 0x0B90, 0x0B92, 0x0B93, 0x0B94, 0x0B95, 0x0B9A,
      0x0B9C, 0x0B9E, 0x0B9F, 0x0BA3, 0x0BA4, 0x0BA9, 0x0BAA, 0x0BAE, 0x0BAF, 0x0BB0, 0x0BB1, 0x0BB3, 0x0BB4,
      0x0BB5, 0x0BB6, 0x0BB7, 0x0BB8}},
    {"Telugu", true, {"NotoSansTelugu-Regular.ttf", "NotoSansTelugu-Bold.ttf", "NotoSerifTelugu-Regular.ttf",
     "NotoSerifTelugu-Bold.ttf"},
     {0x0C15, 0x0C16, 0x0C17, 0x0C18, 0x0C19, 0x0C1B, 0x0C1C, 0x0C1D, 0x0C1E, 0x0C1F, 0x0C21, 0x0C22, 0x0C23,
      0x0C24, 0x0C25, 0x0C27, 0x0C28, 0x0C2A, 0x0C2B, 0x0C2C, 0x0C2E, 0x0C2F, 0x0C30, 0x0C31, 0x0C32, 0x0C34,
      0x0C35, 0x0C36, 0x0C37, 0x0C38}},
    {"Kannada", false, {"NotoSansKannada-Regular.ttf", "NotoSansKannada-Bold.ttf", "NotoSerifKannada-Regular.ttf",
     "NotoSerifKannada-Bold.ttf"},
     {0x0C95, 0x0C96, 0x0C97, 0x0C98, 0x0C99, 0x0C9A, 0x0C9C, 0x0C9D, 0x0C9E, 0x0C9F, 0x0CA0, 0x0CA1, 0x0CA3,
      0x0CA4, 0x0CA5, 0x0CA6, 0x0CA7, 0x0CA8, 0x0CAB, 0x0CAC, 0x0CAD, 0x0CAE, 0x0CAF, 0x0CB0, 0x0CB2, 0x0CB3,
      0x0CB5, 0x0CB6, 0x0CB7, 0x0CB8}},
    {"Malayalam", true, {"NotoSansMalayalam-Regular.ttf", "NotoSansMalayalam-Bold.ttf",
     "NotoSerifMalayalam-Regular.ttf", "NotoSerifMalayalam-Bold.ttf"},
     {0x0D15, 0x0D16, 0x0D17, 0x0D18, 0x0D19, 0x0D1B, 0x0D1C, 0x0D1D, 0x0D1E, 0x0D20, 0x0D21, 0x0D22, 0x0D23,
      0x0D25, 0x0D26, 0x0D27, 0x0D28, 0x0D29, 0x0D2B, 0x0D2C, 0x0D2D, 0x0D2E, 0x0D30, 0x0D31, 0x0D32, 0x0D33,
      0x0D35, 0x0D36, 0x0D37, 0x0D38}},
    {"Sinhala", false, {"NotoSansSinhala-Regular.ttf", "NotoSansSinhala-Bold.ttf", "NotoSerifSinhala-Regular.ttf",
     "NotoSerifSinhala-Bold.ttf"},
     {0x0D9A, 0x0D9B, 0x0D9C, 0x0D9E, 0x0D9F, 0x0DA0, 0x0DA2, 0x0DA3, 0x0DA4, 0x0DA6, 0x0DA7, 0x0DA9, 0x0DAA,
      0x0DAB, 0x0DAD, 0x0DAE, 0x0DAF, 0x0DB1, 0x0DB3, 0x0DB4, 0x0DB6, 0x0DB7, 0x0DB9, 0x0DBA, 0x0DBB, 0x0DC0,
      0x0DC1, 0x0DC2, 0x0DC4, 0x0DC5}},
    {"Thai", true, {"NotoSansThai-Regular.ttf", "NotoSansThai-Bold.ttf", "NotoSerifThai-Regular.ttf",
     "NotoSerifThai-Bold.ttf", "NotoLoopedThai-Regular.ttf", "NotoLoopedThai-Bold.ttf"},
     {0x0E01, 0x0E02, 0x0E04, 0x0E05, 0x0E07, 0x0E08, 0x0E0A, 0x0E0B, 0x0E0D, 0x0E0E, 0x0E10, 0x0E11, 0x0E13,
      0x0E14, 0x0E16, 0x0E18, 0x0E19, 0x0E1B, 0x0E1C, 0x0E1E, 0x0E1F, 0x0E21, 0x0E22, 0x0E24, 0x0E25, 0x0E27,
      0x0E28, 0x0E2A, 0x0E2B, 0x0E2D}},
    {"Lao", false, {"NotoSansLao-Regular.ttf", "NotoSansLao-Bold.ttf", "NotoSerifLao-Regular.ttf",
     "NotoSerifLao-Bold.ttf", "NotoLoopedLao-Regular.ttf", "NotoLoopedLao-Bold.ttf"},
     {0x0E81, 0x0E82, 0x0E84, 0x0E87, 0x0E88, 0x0E8A, 0x0E8D, 0x0E94, 0x0E95, 0x0E96, 0x0E97, 0x0E99, 0x0E9A,
      0x0E9B, 0x0E9C, 0x0E9D, 0x0E9E, 0x0E9F, 0x0EA1, 0x0EA2, 0x0EA3, 0x0EA5, 0x0EA7, 0x0EAA, 0x0EAB, 0x0EAD,
      0x0EAE}},
    {"Khmer", true, {"NotoSansKhmer-Regular.ttf", "NotoSansKhmer-Bold.ttf", "NotoSerifKhmer-Regular.ttf",
     "NotoSerifKhmer-Bold.ttf"},
     {0x1780, 0x1781, 0x1782, 0x1783, 0x1784, 0x1785, 0x1787, 0x1788, 0x1789, 0x178A, 0x178B, 0x178C, 0x178E,
      0x178F, 0x1790, 0x1791, 0x1792, 0x1793, 0x1795, 0x1796, 0x1797, 0x1798, 0x1799, 0x179A, 0x179C, 0x179D,
      0x179E, 0x179F, 0x17A0, 0x17A1}},
    {"Myanmar", true, {"NotoSansMyanmar-Regular.ttf", "NotoSansMyanmar-Bold.ttf", "NotoSerifMyanmar-Regular.ttf",
     "NotoSerifMyanmar-Bold.ttf"},
     {0x1000, 0x1001, 0x1002, 0x1003, 0x1004, 0x1005, 0x1006, 0x1007, 0x1009, 0x100A, 0x100B, 0x100C, 0x100D,
      0x100E, 0x100F, 0x1011, 0x1012, 0x1013, 0x1014, 0x1015, 0x1016, 0x1017, 0x1018, 0x101A, 0x101B, 0x101C,
      0x101D, 0x101E, 0x101F, 0x1020}},
    {"Tibetan", false, {"NotoSerifTibetan-Regular.ttf", "NotoSerifTibetan-Bold.ttf"},
     {0x0F40, 0x0F41, 0x0F42, 0x0F44, 0x0F45, 0x0F47, 0x0F49, 0x0F4B, 0x0F4C, 0x0F4E, 0x0F4F, 0x0F51, 0x0F52,
      0x0F54, 0x0F55, 0x0F57, 0x0F58, 0x0F59, 0x0F5B, 0x0F5C, 0x0F5E, 0x0F5F, 0x0F61, 0x0F62, 0x0F64, 0x0F65,
      0x0F67, 0x0F68, 0x0F6A, 0x0F6B}},
    {"Ethiopic", true, {"NotoSansEthiopic-Regular.ttf", "NotoSansEthiopic-Bold.ttf",
     "NotoSerifEthiopic-Regular.ttf", "NotoSerifEthiopic-Bold.ttf"},
     {0x1200, 0x1208, 0x1210, 0x1220, 0x1228, 0x1238, 0x1240, 0x1250, 0x1258, 0x1260, 0x1270, 0x1278, 0x1288,
      0x1290, 0x12A0, 0x12A8, 0x12B0, 0x12C0, 0x12C8, 0x12D8, 0x12E0, 0x12F0, 0x12F8, 0x1300, 0x1310, 0x1318,
      0x1328, 0x1330, 0x1340, 0x1348}},
    {"Cherokee", false, {"NotoSansCherokee-Regular.ttf", "NotoSansCherokee-Bold.ttf"},
     {0x13A0, 0x13A2, 0x13A5, 0x13A8, 0x13AB, 0x13AE, 0x13B1, 0x13B3, 0x13B6, 0x13B9, 0x13BC, 0x13BF, 0x13C2,
      0x13C4, 0x13C7, 0x13CA, 0x13CD, 0x13D0, 0x13D3, 0x13D5, 0x13D8, 0x13DB, 0x13DE, 0x13E1, 0x13E4, 0x13E6,
      0x13E9, 0x13EC, 0x13EF, 0x13F2}},
    {"Canadian_Aboriginal", true, {"NotoSansCanadianAboriginal-Regular.ttf", "NotoSansCanadianAboriginal-Bold.ttf"},
     {0x1403, 0x1405, 0x140A, 0x1431, 0x1433, 0x1438, 0x144E, 0x1450, 0x1455, 0x146D, 0x146F, 0x1472, 0x148B,
      0x148D, 0x1490, 0x14A5, 0x14A7, 0x14AA, 0x14C2, 0x14C4, 0x14C7, 0x14EF, 0x14F1, 0x14F4, 0x14D5, 0x14D7,
      0x14DA}},
    {"Tifinagh", false, {"NotoSansTifinagh-Regular.ttf"},
     {0x2D30, 0x2D31, 0x2D33, 0x2D35, 0x2D37, 0x2D39, 0x2D3A, 0x2D3C, 0x2D3E, 0x2D40, 0x2D42, 0x2D43, 0x2D45,
      0x2D47, 0x2D49, 0x2D4B, 0x2D4C, 0x2D4E, 0x2D50, 0x2D52, 0x2D54, 0x2D55, 0x2D57, 0x2D59, 0x2D5B, 0x2D5D,
      0x2D5E, 0x2D60, 0x2D62, 0x2D64}},
    {"Runic", true, {"NotoSansRunic-Regular.ttf"},
     {0x16A0, 0x16A2, 0x16A5, 0x16A7, 0x16AA, 0x16AC, 0x16AF, 0x16B1, 0x16B4, 0x16B6, 0x16B9, 0x16BB, 0x16BE,
      0x16C0, 0x16C3, 0x16C5, 0x16C8, 0x16CA, 0x16CD, 0x16CF, 0x16D2, 0x16D4, 0x16D7, 0x16D9, 0x16DC, 0x16DE,
      0x16E1, 0x16E3, 0x16E6, 0x16E8}},
    {"Glagolitic", false, {"NotoSansGlagolitic-Regular.ttf"},
     {0x2C00, 0x2C01, 0x2C03, 0x2C04, 0x2C06, 0x2C07, 0x2C09, 0x2C0A, 0x2C0C, 0x2C0E, 0x2C0F, 0x2C11, 0x2C12,
      0x2C14, 0x2C15, 0x2C17, 0x2C19, 0x2C1A, 0x2C1C, 0x2C1D, 0x2C1F, 0x2C20, 0x2C22, 0x2C24, 0x2C25, 0x2C27,
      0x2C28, 0x2C2A, 0x2C2B, 0x2C2D}},
    {"Gothic", true, {"NotoSansGothic-Regular.ttf"},
     {0x10330, 0x10331, 0x10332, 0x10333, 0x10334, 0x10335, 0x10336, 0x10337, 0x10338, 0x10339, 0x1033A, 0x1033B,
      0x1033C, 0x1033D, 0x1033E, 0x1033F, 0x10340, 0x10342, 0x10343, 0x10344, 0x10345, 0x10346, 0x10347, 0x10348,
      0x10349}},
    {"Coptic", false, {"NotoSansCoptic-Regular.ttf"},
     {0x2C80, 0x2C82, 0x2C84, 0x2C86, 0x2C88, 0x2C8A, 0x2C8C, 0x2C8E, 0x2C90, 0x2C92, 0x2C94, 0x2C96, 0x2C98,
      0x2C9A, 0x2C9C, 0x2C9E, 0x2CA0, 0x2CA2, 0x2CA4, 0x2CA6, 0x2CA8, 0x2CAA, 0x2CAC, 0x2CAE, 0x2CB0}},
    {"Mongolian", true, {"NotoSansMongolian-Regular.ttf"},
     {0x1820, 0x1821, 0x1822, 0x1823, 0x1824, 0x1825, 0x1827, 0x1828, 0x1829, 0x182A, 0x182B, 0x182C, 0x182E,
      0x182F, 0x1830, 0x1831, 0x1832, 0x1833, 0x1835, 0x1836, 0x1837, 0x1838, 0x1839, 0x183A, 0x183C, 0x183D,
      0x183E, 0x183F, 0x1840, 0x1841}},
    {"Vai", false, {"NotoSansVai-Regular.ttf"},
     {0xA500, 0xA509, 0xA512, 0xA51B, 0xA524, 0xA52D, 0xA536, 0xA53F, 0xA548, 0xA551, 0xA55A, 0xA563, 0xA56C,
      0xA575, 0xA57E, 0xA587, 0xA590, 0xA599, 0xA5A2, 0xA5AB, 0xA5B4, 0xA5BD, 0xA5C6, 0xA5CF, 0xA5D8, 0xA5E1,
      0xA5EA, 0xA5F3, 0xA5FC, 0xA605}},
    {"Bamum", true, {"NotoSansBamum-Regular.ttf", "NotoSansBamum-Bold.ttf"},
     {0xA6A0, 0xA6A2, 0xA6A4, 0xA6A7, 0xA6A9, 0xA6AB, 0xA6AE, 0xA6B0, 0xA6B2, 0xA6B5, 0xA6B7, 0xA6B9, 0xA6BC,
      0xA6BE, 0xA6C0, 0xA6C3, 0xA6C5, 0xA6C7, 0xA6CA, 0xA6CC, 0xA6CE, 0xA6D1, 0xA6D3, 0xA6D5, 0xA6D8, 0xA6DA,
      0xA6DC, 0xA6DF, 0xA6E1, 0xA6E3}},
    {"Javanese", false, {"NotoSansJavanese-Regular.ttf", "NotoSansJavanese-Bold.ttf"},
     {0xA984, 0xA985, 0xA987, 0xA988, 0xA98A, 0xA98B, 0xA98D, 0xA98E, 0xA990, 0xA992, 0xA993, 0xA995, 0xA996,
      0xA998, 0xA999, 0xA99B, 0xA99D, 0xA99E, 0xA9A0, 0xA9A1, 0xA9A3, 0xA9A4, 0xA9A6, 0xA9A8, 0xA9A9, 0xA9AB,
      0xA9AC, 0xA9AE, 0xA9AF, 0xA9B1}},
    {"Balinese", true, {"NotoSansBalinese-Regular.ttf", "NotoSansBalinese-Bold.ttf",
     "NotoSerifBalinese-Regular.ttf"},
     {0x1B05, 0x1B06, 0x1B08, 0x1B09, 0x1B0B, 0x1B0C, 0x1B0E, 0x1B0F, 0x1B11, 0x1B13, 0x1B14, 0x1B16, 0x1B17,
      0x1B19, 0x1B1A, 0x1B1C, 0x1B1E, 0x1B1F, 0x1B21, 0x1B22, 0x1B24, 0x1B25, 0x1B27, 0x1B29, 0x1B2A, 0x1B2C,
      0x1B2D, 0x1B2F, 0x1B30, 0x1B32}},
    {"Sundanese", false, {"NotoSansSundanese-Regular.ttf", "NotoSansSundanese-Bold.ttf"},
     {0x1B83, 0x1B84, 0x1B85, 0x1B86, 0x1B87, 0x1B88, 0x1B89, 0x1B8A, 0x1B8B, 0x1B8C, 0x1B8D, 0x1B8E, 0x1B8F,
      0x1B90, 0x1B91, 0x1B92, 0x1B93, 0x1B94, 0x1B95, 0x1B96, 0x1B97, 0x1B98, 0x1B99, 0x1B9A, 0x1B9B, 0x1B9C,
      0x1B9D, 0x1B9E, 0x1B9F, 0x1BA0}},
    {"Batak", true, {"NotoSansBatak-Regular.ttf"},
     {0x1BC0, 0x1BC1, 0x1BC2, 0x1BC3, 0x1BC5, 0x1BC6, 0x1BC7, 0x1BC8, 0x1BCA, 0x1BCB, 0x1BCC, 0x1BCD, 0x1BCF,
      0x1BD0, 0x1BD1, 0x1BD3, 0x1BD4, 0x1BD5, 0x1BD6, 0x1BD8, 0x1BD9, 0x1BDA, 0x1BDB, 0x1BDD, 0x1BDE, 0x1BDF,
      0x1BE0, 0x1BE2, 0x1BE3, 0x1BE4}},
    {"Buginese", true, {"NotoSansBuginese-Regular.ttf"},
     {0x1A00, 0x1A01, 0x1A02, 0x1A03, 0x1A04, 0x1A05, 0x1A06, 0x1A07, 0x1A08, 0x1A09, 0x1A0A, 0x1A0B, 0x1A0C,
      0x1A0D, 0x1A0E, 0x1A0F, 0x1A10, 0x1A11, 0x1A12, 0x1A13, 0x1A14, 0x1A15, 0x1A16}},
    {"Tai_Le", false, {"NotoSansTaiLe-Regular.ttf"},
     {0x1950, 0x1951, 0x1952, 0x1953, 0x1954, 0x1955, 0x1956, 0x1957, 0x1958, 0x1959, 0x195A, 0x195B, 0x195C,
      0x195D, 0x195E, 0x195F, 0x1960, 0x1961, 0x1962, 0x1963, 0x1964, 0x1965, 0x1966, 0x1967, 0x1968, 0x1969,
      0x196A, 0x196B, 0x196C, 0x196D}},
    {"New_Tai_Lue", true, {"NotoSansNewTaiLue-Regular.ttf"},
     {0x1980, 0x1981, 0x1982, 0x1984, 0x1985, 0x1987, 0x1988, 0x198A, 0x198B, 0x198D, 0x198E, 0x1990, 0x1991,
      0x1993, 0x1994, 0x1996, 0x1997, 0x1998, 0x199A, 0x199B, 0x199D, 0x199E, 0x19A0, 0x19A1, 0x19A3, 0x19A4,
      0x19A6, 0x19A7, 0x19A9, 0x19AA}},
    {"Ol_Chiki", false, {"NotoSansOlChiki-Regular.ttf", "NotoSansOlChiki-Bold.ttf"},
     {0x1C5A, 0x1C5B, 0x1C5C, 0x1C5D, 0x1C5E, 0x1C5F, 0x1C60, 0x1C61, 0x1C62, 0x1C63, 0x1C64, 0x1C65, 0x1C66,
      0x1C67, 0x1C68, 0x1C69, 0x1C6A, 0x1C6B, 0x1C6C, 0x1C6D, 0x1C6E, 0x1C6F, 0x1C70, 0x1C71, 0x1C72, 0x1C73,
      0x1C74, 0x1C75, 0x1C76, 0x1C77}},
    {"Lepcha", true, {"NotoSansLepcha-Regular.ttf"},
     {0x1C00, 0x1C01, 0x1C02, 0x1C03, 0x1C04, 0x1C06, 0x1C07, 0x1C08, 0x1C09, 0x1C0A, 0x1C0C, 0x1C0D, 0x1C0E,
      0x1C0F, 0x1C10, 0x1C12, 0x1C13, 0x1C14, 0x1C15, 0x1C16, 0x1C18, 0x1C19, 0x1C1A, 0x1C1B, 0x1C1C, 0x1C1E,
      0x1C1F, 0x1C20, 0x1C21, 0x1C22}},
    {"Limbu", false, {"NotoSansLimbu-Regular.ttf"},
     {0x1900, 0x1901, 0x1902, 0x1903, 0x1904, 0x1905, 0x1906, 0x1907, 0x1908, 0x1909, 0x190A, 0x190B, 0x190C,
      0x190D, 0x190E, 0x190F, 0x1910, 0x1911, 0x1912, 0x1913, 0x1914, 0x1915, 0x1916, 0x1917, 0x1918, 0x1919,
      0x191A, 0x191B, 0x191C, 0x191D}},
    {"Syriac", true, {"NotoSansSyriac-Regular.ttf"},
     {0x0710, 0x0712, 0x0713, 0x0714, 0x0715, 0x0716, 0x0717, 0x0718, 0x0719, 0x071A, 0x071B, 0x071C, 0x071D,
      0x071E, 0x071F, 0x0720, 0x0721, 0x0722, 0x0723, 0x0724, 0x0725, 0x0726, 0x0727, 0x0728, 0x0729, 0x072A,
      0x072B, 0x072C}},
    {"Thaana", false, {"NotoSansThaana-Regular.ttf", "NotoSansThaana-Bold.ttf"},
     {0x0780, 0x0781, 0x0782, 0x0783, 0x0785, 0x0786, 0x0787, 0x0788, 0x078A, 0x078B, 0x078C, 0x078D, 0x078F,
      0x0790, 0x0791, 0x0793, 0x0794, 0x0795, 0x0796, 0x0798, 0x0799, 0x079A, 0x079B, 0x079D, 0x079E, 0x079F,
      0x07A0, 0x07A2, 0x07A3, 0x07A4}},
    {"NKo", true, {"NotoSansNKo-Regular.ttf"},
     {0x07CA, 0x07CB, 0x07CC, 0x07CD, 0x07CE, 0x07CF, 0x07D0, 0x07D1, 0x07D2, 0x07D3, 0x07D5, 0x07D6, 0x07D7,
      0x07D8, 0x07D9, 0x07DA, 0x07DB, 0x07DC, 0x07DD, 0x07DE, 0x07E0, 0x07E1, 0x07E2, 0x07E3, 0x07E4, 0x07E5,
      0x07E6, 0x07E7, 0x07E8, 0x07E9}},
    {"Samaritan", true, {"NotoSansSamaritan-Regular.ttf"},
     {0x0800, 0x0801, 0x0802, 0x0803, 0x0804, 0x0805, 0x0806, 0x0807, 0x0808, 0x0809, 0x080A, 0x080B, 0x080C,
      0x080D, 0x080E, 0x080F, 0x0810, 0x0811, 0x0812, 0x0813, 0x0814, 0x0815}},
    {"Mandaic", false, {"NotoSansMandaic-Regular.ttf"},
     {0x0840, 0x0841, 0x0842, 0x0843, 0x0844, 0x0845, 0x0846, 0x0847, 0x0848, 0x0849, 0x084A, 0x084B, 0x084C,
      0x084D, 0x084E, 0x084F, 0x0850, 0x0851, 0x0852, 0x0853, 0x0854, 0x0855, 0x0856, 0x0857, 0x0858}},
    {"Osmanya", true, {"NotoSansOsmanya-Regular.ttf"},
     {0x10480, 0x10481, 0x10482, 0x10483, 0x10484, 0x10485, 0x10486, 0x10487, 0x10488, 0x10489, 0x1048A, 0x1048B,
      0x1048C, 0x1048D, 0x1048E, 0x1048F, 0x10490, 0x10491, 0x10492, 0x10493, 0x10494, 0x10495, 0x10496, 0x10497,
      0x10498, 0x10499, 0x1049A, 0x1049B, 0x1049C, 0x1049D}},
    {"Deseret", false, {"NotoSansDeseret-Regular.ttf"},
     {0x10400, 0x10401, 0x10402, 0x10404, 0x10405, 0x10406, 0x10408, 0x10409, 0x1040A, 0x1040C, 0x1040D, 0x1040E,
      0x10410, 0x10411, 0x10412, 0x10414, 0x10415, 0x10416, 0x10418, 0x10419, 0x1041A, 0x1041C, 0x1041D, 0x1041E,
      0x10420, 0x10421, 0x10422, 0x10424, 0x10425, 0x10426}},
    {"Shavian", true, {"NotoSansShavian-Regular.ttf"},
     {0x10450, 0x10451, 0x10453, 0x10454, 0x10456, 0x10458, 0x10459, 0x1045B, 0x1045C, 0x1045E, 0x10460, 0x10461,
      0x10463, 0x10464, 0x10466, 0x10468, 0x10469, 0x1046B, 0x1046C, 0x1046E, 0x10470, 0x10471, 0x10473, 0x10474,
      0x10476, 0x10478, 0x10479, 0x1047B, 0x1047C, 0x1047E}},
};
// clang-format on

}  // namespace

// The table as GlyphScripts, made on first use.
const std::vector<GlyphScript>& glyph_scripts() {
  static const std::vector<GlyphScript> table = [] {
    std::vector<GlyphScript> out;
    for (const auto& row : kGlyphScriptTable)
      out.push_back({row.name, row.background, {row.fonts.begin(), row.fonts.end()},
                     {row.letters.begin(), row.letters.end()}});
    return out;
  }();
  return table;
}

const char* noto_font_dir() { return "/usr/share/fonts/truetype/noto"; }

std::string code_point_name(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

std::vector<GlyphScript> select_glyph_scripts(const std::vector<std::string>& names) {
  const auto& table = glyph_scripts();
  if (names.empty()) return table;
  std::vector<std::string> valid;
  for (const auto& s : table) valid.push_back(s.name);
  for (const auto& n : names) {
    if (std::find(valid.begin(), valid.end(), n) != valid.end()) continue;
    const auto near = nearest_name(n, valid);
    throw std::invalid_argument("unknown script '" + n + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                                "; the scripts are listed by `dmlbench data make-glyphs --list`");
  }
  std::vector<GlyphScript> out;
  for (const auto& s : table)
    if (std::find(names.begin(), names.end(), s.name) != names.end()) out.push_back(s);
  return out;
}

void check_glyph_proxy_config(const GlyphProxyConfig& c) {
  auto bad = [](const std::string& what, long long v, const std::string& range) {
    throw std::invalid_argument(what + " = " + std::to_string(v) + " is outside " + range);
  };
  if (c.drawers < 2 || c.drawers > 99) bad("drawers", c.drawers, "2..99 (a letter needs two images to be retrieved)");
  if (c.size < 16 || c.size > 1024) bad("size", c.size, "16..1024");
  if (c.letters_per_script < 0) bad("letters-per-script", c.letters_per_script, "0 (all) or more");
  if (c.threads < 1 || c.threads > 256) bad("threads", c.threads, "1..256");
}

// Version 1: bump when a change to the table or the drawing changes the bytes written.
nlohmann::json glyph_proxy_config_json(const GlyphProxyConfig& c) {
  nlohmann::ordered_json j;
  j["generator"] = "dmlbench glyph proxy (Noto fonts; not Omniglot)";
  j["version"] = 1;
  j["seed"] = c.seed;
  j["drawers"] = c.drawers;
  j["size"] = c.size;
  j["letters_per_script"] = c.letters_per_script;
  std::vector<std::string> names;  // in the table's order, each once; empty: all
  if (!c.scripts.empty())
    for (const auto& s : select_glyph_scripts(c.scripts)) names.push_back(s.name);
  j["scripts"] = names;
  j["font_dir"] = c.font_dir;
  return nlohmann::json::parse(j.dump());  // plain json: the order of keys in the manifest comes from the caller
}

namespace {

// splitmix64 (Steele et al. 2014): a well-mixed 64-bit seed from a few integers.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001B3ULL;
  return h;
}

// A glyph's anti-aliased coverage (0..255), cropped to its inked box.
struct Coverage {
  int rows = 0, cols = 0;
  std::vector<std::uint8_t> v;
  double at(double y, double x) const {  // bilinear, pixel centres at +0.5, zero outside
    const double fy = y - 0.5, fx = x - 0.5;
    const int y0 = int(std::floor(fy)), x0 = int(std::floor(fx));
    const double wy = fy - y0, wx = fx - x0;
    auto px = [&](int r, int c) -> double {
      return (r < 0 || c < 0 || r >= rows || c >= cols) ? 0.0 : v[std::size_t(r) * std::size_t(cols) + std::size_t(c)];
    };
    return (1 - wy) * ((1 - wx) * px(y0, x0) + wx * px(y0, x0 + 1)) +
           wy * ((1 - wx) * px(y0 + 1, x0) + wx * px(y0 + 1, x0 + 1));
  }
};

using Mask = std::vector<std::uint8_t>;  // size x size, 1 = ink

// One step of a 3 x 3 square dilation (grow = true) or erosion; outside the image counts as background.
Mask morph(const Mask& m, int n, bool grow) {
  Mask out(m.size());
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      bool any = false, all = true;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int yy = y + dy, xx = x + dx;
          const bool ink = yy >= 0 && xx >= 0 && yy < n && xx < n && m[std::size_t(yy * n + xx)];
          any = any || ink;
          all = all && ink;
        }
      out[std::size_t(y * n + x)] = (grow ? any : all) ? 1 : 0;
    }
  return out;
}

std::size_t ink_count(const Mask& m) { return std::size_t(std::count(m.begin(), m.end(), 1)); }

// The smooth weight of a control point at distance t in 0..1 cells (smoothstep): the elastic field is C1 inside cells.
double smooth(double t) { return t * t * (3 - 2 * t); }

}  // namespace

struct GlyphRenderer::Impl {
  std::string dir;
  FT_Library lib = nullptr;
  std::map<std::string, FT_Face> faces;                                         // by file name
  std::map<std::pair<std::string, std::pair<char32_t, int>>, Coverage> glyphs;  // (file, (code point, pixel size))

  std::string path(const std::string& file) const { return (fs::path(dir) / file).string(); }

  FT_Face face(const GlyphScript& script, const std::string& file) {
    auto it = faces.find(file);
    if (it != faces.end()) return it->second;
    const auto p = path(file);
    if (!fs::is_regular_file(p))
      throw data_error("glyph proxy: script " + script.name + ": font file " + p +
                       " does not exist (scripts/setup.sh installs fonts-noto-core)");
    FT_Face f = nullptr;
    if (FT_New_Face(lib, p.c_str(), 0, &f) != 0)
      throw data_error("glyph proxy: script " + script.name + ": FreeType cannot open the font file " + p);
    faces.emplace(file, f);
    return f;
  }

  FT_UInt glyph_index(const GlyphScript& script, const std::string& file, char32_t c) {
    const FT_UInt g = FT_Get_Char_Index(face(script, file), FT_ULong(c));
    if (g == 0)
      throw data_error("glyph proxy: script " + script.name + ": font " + path(file) + " has no glyph for " +
                       code_point_name(c));
    return g;
  }

  const Coverage& coverage(const GlyphScript& script, const std::string& file, char32_t c, int px) {
    const auto key = std::make_pair(file, std::make_pair(c, px));
    auto it = glyphs.find(key);
    if (it != glyphs.end()) return it->second;
    const FT_UInt g = glyph_index(script, file, c);
    FT_Face f = face(script, file);
    if (glyphs.size() >= 64) glyphs.clear();  // bounded memory: the proxy draws one letter (a few fonts) at a time
    if (FT_Set_Pixel_Sizes(f, 0, FT_UInt(px)) != 0 ||
        FT_Load_Glyph(f, g, FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP) != 0 ||
        FT_Render_Glyph(f->glyph, FT_RENDER_MODE_NORMAL) != 0)
      throw data_error("glyph proxy: script " + script.name + ": FreeType cannot render " + code_point_name(c) +
                       " from " + path(file));
    const FT_Bitmap& b = f->glyph->bitmap;
    // the inked box (coverage >= 1/2, what binarising keeps), then its coverage with a margin of one pixel
    int top = int(b.rows), bottom = -1, left = int(b.width), right = -1;
    const bool gray = b.pixel_mode == FT_PIXEL_MODE_GRAY;
    for (int r = 0; gray && r < int(b.rows); ++r)
      for (int col = 0; col < int(b.width); ++col)
        if (b.buffer[std::ptrdiff_t(r) * b.pitch + col] >= 128) {
          top = std::min(top, r), bottom = std::max(bottom, r), left = std::min(left, col),
          right = std::max(right, col);
        }
    if (bottom < 0)
      throw data_error("glyph proxy: script " + script.name + ": " + code_point_name(c) + " renders empty from " +
                       path(file));
    top = std::max(0, top - 1), left = std::max(0, left - 1);
    bottom = std::min(int(b.rows) - 1, bottom + 1), right = std::min(int(b.width) - 1, right + 1);
    Coverage cov;
    cov.rows = bottom - top + 1, cov.cols = right - left + 1;
    cov.v.resize(std::size_t(cov.rows) * std::size_t(cov.cols));
    for (int r = 0; r < cov.rows; ++r)
      for (int col = 0; col < cov.cols; ++col)
        cov.v[std::size_t(r * cov.cols + col)] = b.buffer[std::ptrdiff_t(top + r) * b.pitch + left + col];
    return glyphs.emplace(key, std::move(cov)).first->second;
  }
};

GlyphRenderer::GlyphRenderer(std::string font_dir) : impl_(std::make_unique<Impl>()) {
  impl_->dir = std::move(font_dir);
  if (FT_Init_FreeType(&impl_->lib) != 0) throw std::runtime_error("glyph proxy: FreeType does not initialise");
}

GlyphRenderer::~GlyphRenderer() {
  for (auto& [name, f] : impl_->faces) FT_Done_Face(f);
  FT_Done_FreeType(impl_->lib);
}

void GlyphRenderer::check_script(const GlyphScript& script) {
  if (script.fonts.empty()) throw data_error("glyph proxy: script " + script.name + " has no font");
  for (const auto& file : script.fonts) {
    std::map<FT_UInt, char32_t> seen;  // two code points drawn by one glyph would be one letter twice
    for (char32_t c : script.letters) {
      const auto [it, fresh] = seen.emplace(impl_->glyph_index(script, file, c), c);
      if (!fresh)
        throw data_error("glyph proxy: script " + script.name + ": font " + impl_->path(file) + " draws " +
                         code_point_name(c) + " with the glyph of " + code_point_name(it->second));
    }
  }
}

// A drawer: font d mod fonts; a seeded affine (rotation +-12 degrees, scale 0.85..1.1 with aspect 0.92..1.08, shear
// +-0.2, shift +-6% of the side) of the glyph scaled so its inked box's longer side is 60% of the image; an elastic
// field (displacements +-3% of the side at a 5 x 5 grid of control points, smoothly interpolated); coverage >= 1/2 is
// ink; then the strokes thinned by one step or thickened by one or two (3 x 3 erosion / dilation steps, scaled with
// the size; a thinning that would remove more than 60% of the ink is skipped).
Image GlyphRenderer::draw(const GlyphScript& script, std::size_t letter, int drawer, std::uint64_t seed, int size) {
  if (letter >= script.letters.size()) throw std::invalid_argument("glyph proxy: letter index out of range");
  if (script.fonts.empty()) throw data_error("glyph proxy: script " + script.name + " has no font");
  const char32_t c = script.letters[letter];
  const auto& file = script.fonts[std::size_t(drawer) % script.fonts.size()];
  const Coverage& g = impl_->coverage(script, file, c, 2 * size);  // rendered at twice the size, then shrunk

  std::mt19937_64 rng(mix(mix(mix(seed) ^ fnv1a(script.name)) ^ std::uint64_t(c)) ^ std::uint64_t(drawer));
  auto uni = [&](double lo, double hi) { return lo + (hi - lo) * uniform01(rng); };
  const double pi = 3.14159265358979323846;
  const double angle = uni(-12, 12) * pi / 180, scale = uni(0.85, 1.1), aspect = uni(0.92, 1.08);
  const double shear = uni(-0.2, 0.2), tx = uni(-0.06, 0.06) * size, ty = uni(-0.06, 0.06) * size;
  const int stroke = int(std::floor(uni(0, 4))) - 1;  // -1 thin, 0 as is, 1 or 2 thicker
  constexpr int grid = 5;
  double field[2][grid][grid];
  for (auto& plane : field)
    for (auto& row : plane)
      for (double& d : row) d = uni(-0.03, 0.03) * size;

  // M = rotation x shear x scale; sampling maps an output point back through M^-1
  const double s0 = 0.6 * size / std::max(g.rows, g.cols);
  const double sx = s0 * scale * aspect, sy = s0 * scale / aspect;
  const double ca = std::cos(angle), sa = std::sin(angle);
  const double m00 = ca * sx, m01 = (ca * shear - sa) * sy, m10 = sa * sx, m11 = (sa * shear + ca) * sy;
  const double det = m00 * m11 - m01 * m10;
  const double i00 = m11 / det, i01 = -m01 / det, i10 = -m10 / det, i11 = m00 / det;
  const double cx = 0.5 * size + tx, cy = 0.5 * size + ty, gx = 0.5 * g.cols, gy = 0.5 * g.rows;
  const double cell = double(size) / (grid - 1);

  const int n = size;
  Mask mask(std::size_t(n) * std::size_t(n));
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      const double fx = std::min(px / cell, grid - 1.000001), fy = std::min(py / cell, grid - 1.000001);
      const int kx = int(fx), ky = int(fy);
      const double wx = smooth(fx - kx), wy = smooth(fy - ky);
      double d[2];
      for (int k = 0; k < 2; ++k)
        d[k] = (1 - wy) * ((1 - wx) * field[k][ky][kx] + wx * field[k][ky][kx + 1]) +
               wy * ((1 - wx) * field[k][ky + 1][kx] + wx * field[k][ky + 1][kx + 1]);
      const double ux = px + d[0] - cx, uy = py + d[1] - cy;
      const double qx = gx + i00 * ux + i01 * uy, qy = gy + i10 * ux + i11 * uy;
      mask[std::size_t(y * n + x)] = g.at(qy, qx) >= 127.5 ? 1 : 0;
    }
  const int steps = int(std::lround(std::abs(stroke) * size / 105.0));
  for (int s = 0; s < steps; ++s) {
    Mask next = morph(mask, n, stroke > 0);
    if (stroke < 0 && ink_count(next) * 10 < ink_count(mask) * 4) break;
    mask = std::move(next);
  }
  if (ink_count(mask) == 0)
    throw data_error("glyph proxy: script " + script.name + ": " + code_point_name(c) + " drawer " +
                     std::to_string(drawer) + " from " + impl_->path(file) + " has no ink left");
  Image img;
  img.rows = img.cols = n;
  img.channels = 1;
  img.pixels.resize(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i) img.pixels[i] = mask[i] ? 0 : 255;
  return img;
}

namespace {

// The letter's number in the whole table (1-based), so a subset's file names match the full proxy's.
std::map<std::string, std::size_t> first_ids() {
  std::map<std::string, std::size_t> ids;
  std::size_t next = 1;
  for (const auto& s : glyph_scripts()) ids[s.name] = next, next += s.letters.size();
  return ids;
}

std::string two_digits(std::size_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%02zu", v);
  return buf;
}

std::string folder_of(const GlyphScript& s) { return s.background ? "images_background" : "images_evaluation"; }

// The config of the proxy already at `dir`, or null when there is no readable manifest.
nlohmann::json existing_config(const fs::path& dir) {
  std::ifstream in(dir / "manifest.json");
  if (!in) return nullptr;
  try {
    const auto j = nlohmann::json::parse(in);
    return j.contains("config") ? j["config"] : nlohmann::json(nullptr);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

// The bytes of the PNG images under `dir`.
std::uintmax_t png_bytes(const fs::path& dir) {
  std::uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".png") bytes += e.file_size();
  return bytes;
}

// The scripts the config selects, each cut to its first letters_per_script letters (0: all).
std::vector<GlyphScript> scripts_of(const GlyphProxyConfig& config) {
  auto scripts = select_glyph_scripts(config.scripts);
  if (config.letters_per_script > 0)
    for (auto& s : scripts)
      if (s.letters.size() > std::size_t(config.letters_per_script))
        s.letters.resize(std::size_t(config.letters_per_script));
  return scripts;
}

// Renders every letter's drawers into `tmp` on config.threads threads, calling `progress` about every 100 ms; the
// first failing letter's error (in letter order), if any.
class GlyphRenderJobs {
 public:
  GlyphRenderJobs(const GlyphProxyConfig& config, const std::vector<GlyphScript>& scripts, const fs::path& tmp)
      : config_(config), scripts_(scripts), tmp_(tmp), ids_(first_ids()) {
    for (std::size_t s = 0; s < scripts.size(); ++s)
      for (std::size_t l = 0; l < scripts[s].letters.size(); ++l) jobs_.push_back({s, l});
    error_job_ = jobs_.size();
  }

  // Runs the jobs to the end (or the first error) and returns that error (null when none).
  std::exception_ptr run(std::size_t images, const GlyphProgress& progress) {
    std::vector<std::thread> pool;
    for (int t = 0; t < config_.threads; ++t) pool.emplace_back([this] { work(); });
    for (;;) {
      const bool finished = done_ == images || failed_;
      if (progress) progress(done_, images);
      if (finished) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (auto& t : pool) t.join();
    return error_;
  }

 private:
  struct Job {
    std::size_t script, letter;
  };

  // One thread: takes the next letter until none is left or one has failed.
  void work() {
    try {
      GlyphRenderer renderer(config_.font_dir);
      for (std::size_t j; !failed_ && (j = next_++) < jobs_.size();) {
        try {
          draw_letter(renderer, jobs_[j]);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex_);
          if (j < error_job_) error_job_ = j, error_ = std::current_exception();  // the first letter's error
          failed_ = true;
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
      failed_ = true;
    }
  }

  // Writes one letter's drawers as <id>_<drawer>.png in its character folder.
  void draw_letter(GlyphRenderer& renderer, const Job& job) {
    const auto& s = scripts_[job.script];
    const std::size_t letter = job.letter;
    const fs::path dir = tmp_ / folder_of(s) / s.name / ("character" + two_digits(letter + 1));
    fs::create_directories(dir);
    char id[16];
    std::snprintf(id, sizeof id, "%04zu", ids_.at(s.name) + letter);
    for (int d = 0; d < config_.drawers; ++d) {
      write_png((dir / (std::string(id) + "_" + two_digits(std::size_t(d + 1)) + ".png")).string(),
                renderer.draw(s, letter, d, config_.seed, config_.size));
      ++done_;
    }
  }

  const GlyphProxyConfig& config_;
  const std::vector<GlyphScript>& scripts_;
  const fs::path tmp_;
  const std::map<std::string, std::size_t> ids_;
  std::vector<Job> jobs_;
  std::atomic<std::size_t> next_{0}, done_{0};
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::size_t error_job_ = 0;
  std::exception_ptr error_;
};

// manifest.json: the config, what the proxy is, and each script's split, letters, fonts and code points.
json glyph_manifest(const nlohmann::json& cfg, const GlyphProxyConfig& config, std::size_t images,
                    const std::vector<GlyphScript>& scripts) {
  json manifest;
  manifest["config"] = cfg;
  manifest["note"] = "a glyph proxy in Omniglot's layout, rendered from Debian's fonts-noto-core: not Omniglot";
  manifest["drawers"] = config.drawers;
  manifest["images"] = images;
  manifest["scripts"] = json::array();
  for (const auto& s : scripts) {
    json js;
    js["name"] = s.name;
    js["split"] = folder_of(s);
    js["letters"] = s.letters.size();
    js["fonts"] = s.fonts;
    js["code_points"] = json::array();
    for (char32_t c : s.letters) js["code_points"].push_back(code_point_name(c));
    manifest["scripts"].push_back(js);
  }
  return manifest;
}

}  // namespace

GlyphProxySummary make_glyph_proxy(const GlyphProxyConfig& config, const std::string& out_dir, bool force,
                                   const GlyphProgress& progress) {
  check_glyph_proxy_config(config);
  const auto scripts = scripts_of(config);
  const auto cfg = glyph_proxy_config_json(config);
  const fs::path out = fs::path(out_dir), tmp = fs::path(out_dir + ".tmp");

  GlyphProxySummary sum;
  sum.scripts = scripts.size();
  for (const auto& s : scripts) sum.letters += s.letters.size();
  sum.images = sum.letters * std::size_t(config.drawers);
  if (fs::exists(out)) {
    const auto old = existing_config(out);
    if (old == cfg) {
      sum.already_there = true;
      sum.bytes += png_bytes(out);
      return sum;
    }
    if (!force)
      throw std::invalid_argument(out_dir + " already exists and is not this proxy (" +
                                  (old.is_null() ? std::string("no manifest.json") : "its config: " + old.dump()) +
                                  "); choose another --out or pass --force to replace it");
  }

  {  // fail before writing anything: every font and glyph is there
    GlyphRenderer check(config.font_dir);
    for (const auto& s : scripts) check.check_script(s);
  }

  fs::remove_all(tmp);
  fs::create_directories(tmp);
  if (const auto error = GlyphRenderJobs(config, scripts, tmp).run(sum.images, progress)) {
    fs::remove_all(tmp);
    std::rethrow_exception(error);
  }

  write_file_atomically((tmp / "manifest.json").string(),
                        glyph_manifest(cfg, config, sum.images, scripts).dump(2) + "\n");
  sum.bytes += png_bytes(tmp);
  if (fs::exists(out)) fs::remove_all(out);  // force: checked above
  fs::rename(tmp, out);
  return sum;
}

}  // namespace dmlbench::experiments
