// Picks each operand's load/store and compute type from its dtype macro
// (DT0, DT1, DT2 for inputs, DTO for the output): LD0/C0 … STO/CO.
#ifndef SY_SELECT_GLSL
#define SY_SELECT_GLSL
#if DT0 == DT_F32
#define LD0 ld_f32
#define C0 float
#elif DT0 == DT_F16
#define LD0 ld_f16
#define C0 float
#elif DT0 == DT_BF16
#define LD0 ld_bf16
#define C0 float
#elif DT0 == DT_I32
#define LD0 ld_i32
#define C0 int
#elif DT0 == DT_I64
#define LD0 ld_i64
#define C0 int64_t
#elif DT0 == DT_I8
#define LD0 ld_i8
#define C0 int
#elif DT0 == DT_U8
#define LD0 ld_u8
#define C0 int
#elif DT0 == DT_BOOL
#define LD0 ld_bool
#define C0 int
#endif
#if DT1 == DT_F32
#define LD1 ld_f32
#define C1 float
#elif DT1 == DT_F16
#define LD1 ld_f16
#define C1 float
#elif DT1 == DT_BF16
#define LD1 ld_bf16
#define C1 float
#elif DT1 == DT_I32
#define LD1 ld_i32
#define C1 int
#elif DT1 == DT_I64
#define LD1 ld_i64
#define C1 int64_t
#elif DT1 == DT_I8
#define LD1 ld_i8
#define C1 int
#elif DT1 == DT_U8
#define LD1 ld_u8
#define C1 int
#elif DT1 == DT_BOOL
#define LD1 ld_bool
#define C1 int
#endif
#if DT2 == DT_F32
#define LD2 ld_f32
#define C2 float
#elif DT2 == DT_F16
#define LD2 ld_f16
#define C2 float
#elif DT2 == DT_BF16
#define LD2 ld_bf16
#define C2 float
#elif DT2 == DT_I32
#define LD2 ld_i32
#define C2 int
#elif DT2 == DT_I64
#define LD2 ld_i64
#define C2 int64_t
#elif DT2 == DT_I8
#define LD2 ld_i8
#define C2 int
#elif DT2 == DT_U8
#define LD2 ld_u8
#define C2 int
#elif DT2 == DT_BOOL
#define LD2 ld_bool
#define C2 int
#endif
#if DTO == DT_F32
#define STO st_f32
#define CO float
#elif DTO == DT_F16
#define STO st_f16
#define CO float
#elif DTO == DT_BF16
#define STO st_bf16
#define CO float
#elif DTO == DT_I32
#define STO st_i32
#define CO int
#elif DTO == DT_I64
#define STO st_i64
#define CO int64_t
#elif DTO == DT_I8
#define STO st_i8
#define CO int
#elif DTO == DT_U8
#define STO st_u8
#define CO int
#elif DTO == DT_BOOL
#define STO st_bool
#define CO int
#endif
#endif  // SY_SELECT_GLSL
