#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/ops/shape_context.h"
#include "gtest/gtest.h"

namespace sy::core {
namespace {

TEST(SchemaParserTest, EveryCoreSchemaParsesAndPrintsAsWritten) {
  ASSERT_FALSE(CoreOps().empty());
  for (const CoreOpDef& op : CoreOps()) {
    absl::StatusOr<Schema> schema = ParseSchema(op.schema);
    ASSERT_TRUE(schema.ok()) << schema.status();
    // Core schemas are written in canonical form: what `switchyard ops`
    // prints is exactly the text of docs/ops.md.
    EXPECT_EQ(schema->ToString(), op.schema);
    absl::StatusOr<Schema> again = ParseSchema(schema->ToString());
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(*again, *schema) << op.schema;
    EXPECT_EQ(schema->num_returns, 1);
    EXPECT_EQ(schema->ns, "");
  }
}

TEST(SchemaParserTest, CommunicatorIsAnAttributeWithoutDefaultOrNone) {
  absl::StatusOr<Schema> s = ParseSchema(
      "vendor::all_sum(Tensor x, Communicator comm, str op=\"sum\") -> Tensor");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->args[1].kind, ArgKind::kCommunicator);
  EXPECT_EQ(s->attr_args, (std::vector<int>{1, 2}));
  EXPECT_EQ(ArgKindName(ArgKind::kCommunicator), "Communicator");
  EXPECT_EQ(s->ToString(),
            "vendor::all_sum(Tensor x, Communicator comm, str op=\"sum\") -> Tensor");
  absl::StatusOr<Schema> optional = ParseSchema("f(Communicator? c) -> Tensor");
  ASSERT_FALSE(optional.ok());
  EXPECT_EQ(optional.status().message(),
            "schema 'f(Communicator? c) -> Tensor': at column 3: a Communicator "
            "argument cannot be optional; collective ops always run on one");
  absl::StatusOr<Schema> with_default = ParseSchema("f(Communicator c=0) -> Tensor");
  ASSERT_FALSE(with_default.ok());
  EXPECT_NE(with_default.status().message().find(
                "expected no default (a Communicator is always passed) as the "
                "default of Communicator argument 'c'"),
            std::string::npos)
      << with_default.status();
}

TEST(SchemaParserTest, ParsesNamesOverloadsAndArguments) {
  absl::StatusOr<Schema> s =
      ParseSchema("add.Tensor(Tensor a, Tensor b) -> Tensor");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->name, "add");
  EXPECT_EQ(s->overload, "Tensor");
  EXPECT_EQ(s->FullName(), "add.Tensor");
  EXPECT_EQ(s->BaseName(), "add");
  ASSERT_EQ(s->args.size(), 2u);
  EXPECT_EQ(s->args[1].name, "b");
  EXPECT_EQ(s->args[1].kind, ArgKind::kTensor);
  EXPECT_EQ(s->tensor_args, (std::vector<int>{0, 1}));
  EXPECT_TRUE(s->attr_args.empty());

  s = ParseSchema(
      "cuda::flash_attention.v2(Tensor q, Tensor k, Tensor v, "
      "bool causal=False) -> (Tensor, Tensor)");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->ns, "cuda");
  EXPECT_EQ(s->FullName(), "cuda::flash_attention.v2");
  EXPECT_EQ(s->BaseName(), "cuda::flash_attention");
  EXPECT_EQ(s->num_returns, 2);
  EXPECT_EQ(s->tensor_args, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(s->attr_args, (std::vector<int>{3}));
  EXPECT_EQ(s->args[3].default_value, DefaultValue(false));
  EXPECT_EQ(s->ToString(),
            "cuda::flash_attention.v2(Tensor q, Tensor k, Tensor v, "
            "bool causal=False) -> (Tensor, Tensor)");

  s = ParseSchema("relu(Tensor x) -> Tensor");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->FullName(), "relu");
  EXPECT_EQ(s->overload, "");

  s = ParseSchema("now() -> Tensor");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->args.empty());
  EXPECT_EQ(s->ToString(), "now() -> Tensor");
}

TEST(SchemaParserTest, ParsesEveryKindOfDefault) {
  absl::StatusOr<Schema> s = ParseSchema(
      "f(Tensor[] xs, Tensor? w=None, int[] dims=[], int[] k=[1, -2], "
      "int i=-3, float f=1e-5, float g=2, Scalar s=2, Scalar t=2.5, "
      "bool b=True, str mode='tanh', ScalarType d=float16, int? n=None, "
      "float? scale=None) -> Tensor");
  ASSERT_TRUE(s.ok()) << s.status();
  const std::vector<SchemaArg>& a = s->args;
  ASSERT_EQ(a.size(), 14u);
  EXPECT_EQ(a[0].kind, ArgKind::kTensorList);
  EXPECT_FALSE(a[0].has_default);
  EXPECT_TRUE(a[1].optional);
  EXPECT_EQ(a[1].default_value, DefaultValue(std::monostate{}));
  EXPECT_EQ(a[2].default_value, DefaultValue(std::vector<int64_t>{}));
  EXPECT_EQ(a[3].default_value, DefaultValue(std::vector<int64_t>{1, -2}));
  EXPECT_EQ(a[4].default_value, DefaultValue(int64_t{-3}));
  EXPECT_EQ(a[5].default_value, DefaultValue(1e-5));
  // A float argument's int default is a float; a Scalar keeps what it got.
  EXPECT_EQ(a[6].default_value, DefaultValue(2.0));
  EXPECT_EQ(a[7].default_value, DefaultValue(int64_t{2}));
  EXPECT_EQ(a[8].default_value, DefaultValue(2.5));
  EXPECT_EQ(a[9].default_value, DefaultValue(true));
  EXPECT_EQ(a[10].default_value, DefaultValue(std::string("tanh")));
  EXPECT_EQ(a[11].default_value, DefaultValue(sy_dtype_t{SY_DTYPE_F16}));
  EXPECT_EQ(a[12].kind, ArgKind::kInt);
  EXPECT_TRUE(a[12].optional);
  EXPECT_EQ(s->tensor_args, (std::vector<int>{0, 1}));
  EXPECT_EQ(s->attr_args.size(), 12u);
  EXPECT_EQ(s->ToString(),
            "f(Tensor[] xs, Tensor? w=None, int[] dims=[], int[] k=[1, -2], "
            "int i=-3, float f=1e-05, float g=2.0, Scalar s=2, "
            "Scalar t=2.5, bool b=True, str mode=\"tanh\", "
            "ScalarType d=f16, int? n=None, float? scale=None) -> Tensor");
}

TEST(SchemaParserTest, NormalizesSpacing) {
  absl::StatusOr<Schema> s = ParseSchema(
      "  rms_norm ( Tensor x,Tensor weight ,float eps = 1e-6 )->Tensor\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->ToString(),
            "rms_norm(Tensor x, Tensor weight, float eps=1e-06) -> Tensor");
}

TEST(SchemaParserTest, FloatsPrintShortestAndReadBack) {
  const std::pair<const char*, const char*> cases[] = {
      {"1e-6", "1e-06"},    {"0.1", "0.1"},
      {"1.", "1.0"},        {"-2.5", "-2.5"},
      {"1e20", "1e+20"},    {"3.0", "3.0"},
      {"1.5E-3", "0.0015"}, {"123456789.125", "123456789.125"},
  };
  for (const auto& [in, out] : cases) {
    absl::StatusOr<Schema> s =
        ParseSchema(std::string("f(Scalar v=") + in + ") -> Tensor");
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->ToString(), std::string("f(Scalar v=") + out + ") -> Tensor");
    EXPECT_TRUE(std::holds_alternative<double>(s->args[0].default_value));
  }
}

TEST(SchemaParserTest, StringsWithQuotesRoundTrip) {
  absl::StatusOr<Schema> s =
      ParseSchema(R"(f(str a="say \"hi\"", str b='back\\slash') -> Tensor)");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->args[0].default_value, DefaultValue(std::string("say \"hi\"")));
  EXPECT_EQ(s->args[1].default_value, DefaultValue(std::string("back\\slash")));
  EXPECT_EQ(s->ToString(),
            R"(f(str a="say \"hi\"", str b="back\\slash") -> Tensor)");
  absl::StatusOr<Schema> again = ParseSchema(s->ToString());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *s);
}

TEST(SchemaParserTest, ArgKindNames) {
  EXPECT_EQ(ArgKindName(ArgKind::kTensor), "Tensor");
  EXPECT_EQ(ArgKindName(ArgKind::kTensorList), "Tensor[]");
  EXPECT_EQ(ArgKindName(ArgKind::kInt), "int");
  EXPECT_EQ(ArgKindName(ArgKind::kIntList), "int[]");
  EXPECT_EQ(ArgKindName(ArgKind::kFloat), "float");
  EXPECT_EQ(ArgKindName(ArgKind::kBool), "bool");
  EXPECT_EQ(ArgKindName(ArgKind::kScalar), "Scalar");
  EXPECT_EQ(ArgKindName(ArgKind::kString), "str");
  EXPECT_EQ(ArgKindName(ArgKind::kDType), "ScalarType");
}

// A schema built at random from the grammar prints to text that parses
// back to an equal schema, and printing is a fixed point.
TEST(SchemaParserTest, RandomSchemasRoundTrip) {
  std::mt19937 rng(20220623);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const ArgKind kinds[] = {
      ArgKind::kTensor,  ArgKind::kTensorList, ArgKind::kInt,
      ArgKind::kIntList, ArgKind::kFloat,      ArgKind::kBool,
      ArgKind::kScalar,  ArgKind::kString,     ArgKind::kDType};
  for (int iter = 0; iter < 500; ++iter) {
    Schema s;
    s.ns = pick(3) == 0 ? "vendor" : "";
    s.name = "op" + std::to_string(iter);
    s.overload = pick(2) == 0 ? "out" : "";
    s.num_returns = 1 + pick(3);
    const int n = pick(6);
    bool defaults_started = false;
    for (int i = 0; i < n; ++i) {
      SchemaArg a;
      a.name = "a" + std::to_string(i);
      a.kind = kinds[pick(9)];
      a.optional = pick(3) == 0;
      a.has_default = defaults_started || pick(3) == 0;
      if (a.is_tensor() && a.has_default) a.optional = true;
      if (a.has_default) {
        defaults_started = true;
        if (a.is_tensor() || (a.optional && pick(2) == 0)) {
          a.default_value = std::monostate{};
        } else {
          switch (a.kind) {
            case ArgKind::kInt:
              a.default_value = int64_t(rng()) - int64_t(rng());
              break;
            case ArgKind::kIntList: {
              std::vector<int64_t> v(pick(4));
              for (int64_t& x : v) x = pick(200) - 100;
              a.default_value = v;
              break;
            }
            case ArgKind::kFloat:
              a.default_value =
                  std::ldexp(double(rng()) - double(rng()), pick(80) - 40);
              break;
            case ArgKind::kScalar:
              if (pick(2) == 0) {
                a.default_value = int64_t(pick(1000)) - 500;
              } else {
                a.default_value = double(rng()) / double(rng() | 1);
              }
              break;
            case ArgKind::kBool:
              a.default_value = pick(2) == 0;
              break;
            case ArgKind::kString:
              a.default_value = std::string(pick(2) ? "a\"b\\c'" : "");
              break;
            case ArgKind::kDType:
              a.default_value = kAllDTypes[pick(9)];
              break;
            default:
              break;
          }
        }
      }
      (a.is_tensor() ? s.tensor_args : s.attr_args).push_back(i);
      s.args.push_back(a);
    }
    const std::string text = s.ToString();
    absl::StatusOr<Schema> parsed = ParseSchema(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, s) << text;
    EXPECT_EQ(parsed->ToString(), text);
  }
}

struct BadSchema {
  const char* text;
  const char* message;
};

// Each error quotes the text, gives the column and says what was expected
// and what was found (or what is wrong and how to write it instead).
TEST(SchemaParserTest, BadSchemasGetExactMessages) {
  const BadSchema cases[] = {
      {"add(Tensor a,, Tensor b) -> Tensor",
       "schema 'add(Tensor a,, Tensor b) -> Tensor': at column 14: expected "
       "an argument type (Tensor, int, float, \u2026), found ','"},
      {"",
       "schema '': at column 1: expected an op name, found the end of "
       "the schema"},
      {"(Tensor a) -> Tensor",
       "schema '(Tensor a) -> Tensor': at column 1: expected an op name, "
       "found '('"},
      {"add(Tensor a, Tensor a) -> Tensor",
       "schema 'add(Tensor a, Tensor a) -> Tensor': at column 22: argument "
       "name 'a' is used twice; give each argument its own name"},
      {"f(Tensor a=None) -> Tensor",
       "schema 'f(Tensor a=None) -> Tensor': at column 12: Tensor argument "
       "'a' has a default but is not optional; write 'Tensor? a=None'"},
      {"f(Tensor? a=1) -> Tensor",
       "schema 'f(Tensor? a=1) -> Tensor': at column 13: expected None as "
       "the default of Tensor? argument 'a', found '1'"},
      {"f(Tensor[] a=None) -> Tensor",
       "schema 'f(Tensor[] a=None) -> Tensor': at column 14: Tensor[] "
       "argument 'a' has a default but is not optional; write "
       "'Tensor[]? a=None'"},
      {"f(int x=1, int y) -> Tensor",
       "schema 'f(int x=1, int y) -> Tensor': at column 16: argument 'y' has "
       "no default but follows 'x', which has one; put arguments with "
       "defaults last"},
      {"f(Tensor a, int x=1.5) -> Tensor",
       "schema 'f(Tensor a, int x=1.5) -> Tensor': at column 19: expected an "
       "integer as the default of int argument 'x', found '1.5'"},
      {"f(Tensor a, bool b=3) -> Tensor",
       "schema 'f(Tensor a, bool b=3) -> Tensor': at column 20: expected "
       "True or False as the default of bool argument 'b', found '3'"},
      {"f(Tensor a, Foo b) -> Tensor",
       "schema 'f(Tensor a, Foo b) -> Tensor': at column 13: expected an "
       "argument type (one of Tensor, Tensor[], int, int[], float, bool, "
       "Scalar, str, ScalarType, Communicator), found 'Foo'"},
      {"f(Tensor a, Tensor) -> Tensor",
       "schema 'f(Tensor a, Tensor) -> Tensor': at column 19: expected an "
       "argument name after 'Tensor', found ')'"},
      {"f(Tensor a) -> Tensor garbage",
       "schema 'f(Tensor a) -> Tensor garbage': at column 23: expected the "
       "end of the schema, found 'garbage'"},
      {"f(Tensor a) Tensor",
       "schema 'f(Tensor a) Tensor': at column 13: expected '->' after ')', "
       "found 'Tensor'"},
      {"f(Tensor a) -> int",
       "schema 'f(Tensor a) -> int': at column 16: expected 'Tensor' or '(' "
       "as the return type (every return is a Tensor in v1), found 'int'"},
      {"f(Tensor a) -> (Tensor, int)",
       "schema 'f(Tensor a) -> (Tensor, int)': at column 25: expected "
       "'Tensor' (every return is a Tensor in v1), found 'int'"},
      {"f(Tensor a) ->",
       "schema 'f(Tensor a) ->': at column 15: expected 'Tensor' or '(' as "
       "the return type (every return is a Tensor in v1), found the end of "
       "the schema"},
      {"f(Tensor a, int x=None) -> Tensor",
       "schema 'f(Tensor a, int x=None) -> Tensor': at column 19: argument "
       "'x' defaults to None but is not optional; write 'int? x=None'"},
      {"f(Tensor a, int[] x=[1, 2.5]) -> Tensor",
       "schema 'f(Tensor a, int[] x=[1, 2.5]) -> Tensor': at column 25: "
       "expected an integer in the default of 'x', found '2.5'"},
      {"f(Tensor a, int[] x=[1, 2) -> Tensor",
       "schema 'f(Tensor a, int[] x=[1, 2) -> Tensor': at column 26: "
       "expected ',' or ']' in the default of 'x', found ')'"},
      {"f(Tensor a, str s=\"abc) -> Tensor",
       "schema 'f(Tensor a, str s=\"abc) -> Tensor': at column 19: expected "
       "a quoted string as the default of str argument 's', found '\"abc) -> "
       "Tensor' (a string with no closing quote)"},
      {"f(Tensor a, ScalarType d=f128) -> Tensor",
       "schema 'f(Tensor a, ScalarType d=f128) -> Tensor': at column 26: "
       "expected a dtype name (f32, f64, f16, bf16, i32, i64, i8, u8, bool) "
       "as the default of ScalarType argument 'd', found 'f128'"},
      {"f(Tensor a, int x=99999999999999999999) -> Tensor",
       "schema 'f(Tensor a, int x=99999999999999999999) -> Tensor': at "
       "column 19: integer '99999999999999999999' does not fit in 64 bits"},
      {"f(Tensor a, float x=1e999) -> Tensor",
       "schema 'f(Tensor a, float x=1e999) -> Tensor': at column 21: number "
       "'1e999' is out of the range of a double"},
      {"f(Tensor a, int x=12abc) -> Tensor",
       "schema 'f(Tensor a, int x=12abc) -> Tensor': at column 19: expected "
       "an integer as the default of int argument 'x', found '12abc' (not a "
       "number)"},
      {"f(Tensor a, Scalar x=True) -> Tensor",
       "schema 'f(Tensor a, Scalar x=True) -> Tensor': at column 22: "
       "expected a number as the default of Scalar argument 'x', found "
       "'True'"},
      {"f(Tensor a $) -> Tensor",
       "schema 'f(Tensor a $) -> Tensor': at column 12: expected ',' or ')' "
       "after an argument, found '$'"},
      {"ns:f(Tensor a) -> Tensor",
       "schema 'ns:f(Tensor a) -> Tensor': at column 3: expected '(' after "
       "the op name, found ':'"},
      {"ns::(Tensor a) -> Tensor",
       "schema 'ns::(Tensor a) -> Tensor': at column 5: expected an op name "
       "after '::', found '('"},
      {"f.(Tensor a) -> Tensor",
       "schema 'f.(Tensor a) -> Tensor': at column 3: expected an overload "
       "name after '.', found '('"},
      {"f(Tensor[ a) -> Tensor",
       "schema 'f(Tensor[ a) -> Tensor': at column 11: expected ']' to close "
       "'Tensor[', found 'a'"},
      {"f(Tensor a, int[] x=1) -> Tensor",
       "schema 'f(Tensor a, int[] x=1) -> Tensor': at column 21: expected a "
       "list of integers such as [1, 1] as the default of int[] argument "
       "'x', found '1'"},
      {"f(Tensor a, float x=\"1\") -> Tensor",
       "schema 'f(Tensor a, float x=\"1\") -> Tensor': at column 21: "
       "expected a number as the default of float argument 'x', found "
       "'\"1\"'"},
      {"f(Tensor a, int x=) -> Tensor",
       "schema 'f(Tensor a, int x=) -> Tensor': at column 19: expected an "
       "integer as the default of int argument 'x', found ')'"},
      {"f(Tensor a) -> Tensor \xc3\xa9",
       "schema 'f(Tensor a) -> Tensor \xc3\xa9': at column 23: expected the "
       "end of the schema, found '\xc3\xa9'"},
  };
  for (const BadSchema& c : cases) {
    absl::StatusOr<Schema> s = ParseSchema(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(s.status().message()), c.message);
  }
}

}  // namespace
}  // namespace sy::core
