#pragma once
// cascade: parallel reduce and prefix scan for CUDA, in the style of Thrust
// and CUB. Include this header, or <cascade/reduce.cuh> / <cascade/scan.cuh> /
// <cascade/transform_reduce.cuh> / <cascade/element.cuh>.

#include <cascade/element.cuh>
#include <cascade/error.cuh>
#include <cascade/execution.cuh>
#include <cascade/functional.cuh>
#include <cascade/resources.cuh>
#include <cascade/reduce.cuh>
#include <cascade/scan.cuh>
#include <cascade/by_key.cuh>
#include <cascade/segmented.cuh>
#include <cascade/transform_reduce.cuh>
